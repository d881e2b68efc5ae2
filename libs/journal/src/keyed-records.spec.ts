import { ClassicLevel } from 'classic-level';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntryKind } from './journal-entry';
import { JournalStore } from './journal-store';
import { SUBLEVEL_NAMES } from './leveldb-layout';
import { KEYED_SNAPSHOT_COPY_KEY } from './keyed-records';
import { encodeOpKey } from './op-key';

/** Flips one byte of the stored value of `key` in sublevel `name` of a closed store's directory. */
async function flipByte(dir: string, name: string, key: Buffer): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const level = db.sublevel<Buffer, Buffer>(name, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    const value = Buffer.from((await level.get(key))!);
    value[value.length - 1] ^= 0x01;
    await level.put(key, value);
  } finally {
    await db.close();
  }
}

/** A checkpoint of one record, as the engine's keyed store seals one. */
function checkpointOf(generation: number, key: string, value: string) {
  return {
    generation,
    changes: [[Buffer.from(key), Buffer.from(value)] as const][Symbol.iterator](),
  };
}

describe('JournalStore keyed records', () => {
  let dir: string;
  let notices: string[];

  async function openWithEntries(count: number): Promise<JournalStore> {
    const store = await JournalStore.open(dir, { notice: (message) => notices.push(message) });
    for (let i = store.lastOp; i < count; i++) {
      await store.append({
        kind: EntryKind.Command,
        client: '1'.repeat(32),
        session: 1,
        request: i + 1,
        userId: 1,
        requestChecksum: Buffer.alloc(16),
        body: Buffer.alloc(0),
      });
    }
    return store;
  }

  beforeEach(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'once-journal-keyed-'));
    notices = [];
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('writes the records, the head and the snapshot in one batch, and reads them back after a reopen', async () => {
    let store = await openWithEntries(2);
    await store.saveSnapshot(2, Buffer.from('state at 2'), checkpointOf(1, 'm\u0000k', '"v"'));
    await store.close();
    store = await openWithEntries(2);
    expect(store.keyed.head()).toEqual({ generation: 1, op: 2 });
    expect(store.keyed.get(1, 'm\u0000k')).toBe('"v"');
    expect(store.keyed.get(2, 'm\u0000k')).toBeUndefined();
    await store.close();
  });

  it('reads back keys of any length and script, each under its own generation', async () => {
    const short = 'm\u0000k';
    const wide = `m\u0000${'\u{1F600}é'.repeat(50)}`;
    // Longer than any buffer a read may reuse for its key.
    const long = `m\u0000${'é'.repeat(5000)}`;
    const store = await openWithEntries(3);
    try {
      const changes = [short, wide, long].map(
        (key, i) => [Buffer.from(key), Buffer.from(`${i}`)] as const,
      );
      await store.saveSnapshot(2, Buffer.from('state at 2'), {
        generation: 1,
        changes: changes[Symbol.iterator](),
      });
      expect([short, wide, long].map((key) => store.keyed.get(1, key))).toEqual(['0', '1', '2']);
      expect(store.keyed.get(1, `${long}x`)).toBeUndefined();
      // A newer generation (the older one's records are then deleted in the background)
      await store.saveSnapshot(3, Buffer.from('state at 3'), checkpointOf(2, short, '"two"'));
      expect(store.keyed.get(2, short)).toBe('"two"');
      expect(store.keyed.get(2, long)).toBeUndefined();
      expect(store.keyed.get(3, short)).toBeUndefined();
      expect(store.keyed.get(2, short)).toBe('"two"');
    } finally {
      await store.close();
    }
  });

  it('when the snapshot the records belong to is damaged, then its copy kept with the records is listed instead, and the damage is told', async () => {
    let store = await openWithEntries(3);
    await store.saveSnapshot(2, Buffer.from('state at 2'), checkpointOf(1, 'm\u0000k', '1'));
    await store.saveSnapshot(3, Buffer.from('state at 3'), checkpointOf(1, 'm\u0000k', '2'));
    await store.close();
    await flipByte(dir, SUBLEVEL_NAMES.snapshot, encodeOpKey(3));

    store = await openWithEntries(3);
    const records = await store.listSnapshots();
    expect(records.map((record) => record.op)).toEqual([3, 2]);
    expect(records[0]).toMatchObject({ op: 3 });
    expect((records[0] as { payload: Buffer }).payload.toString()).toBe('state at 3');
    expect(notices).toEqual([
      'snapshot at op 3 is corrupt: checksum mismatch; the copy written with the keyed records is used',
    ]);
    await store.close();
  });

  it('when the copy is damaged too, then the snapshot stays an error record', async () => {
    let store = await openWithEntries(2);
    await store.saveSnapshot(2, Buffer.from('state at 2'), checkpointOf(1, 'm\u0000k', '1'));
    await store.close();
    await flipByte(dir, SUBLEVEL_NAMES.snapshot, encodeOpKey(2));
    await flipByte(dir, SUBLEVEL_NAMES.keyed, KEYED_SNAPSHOT_COPY_KEY);

    store = await openWithEntries(2);
    const [record] = await store.listSnapshots();
    expect(record).toEqual({ op: 2, error: 'snapshot at op 2 is corrupt: checksum mismatch' });
    expect(notices).toEqual([]);
    await store.close();
  });
});
