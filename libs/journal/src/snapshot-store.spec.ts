import { ClassicLevel } from 'classic-level';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntryKind } from './journal-entry';
import { JournalStore } from './journal-store';
import { SUBLEVEL_NAMES } from './leveldb-layout';
import { encodeOpKey } from './op-key';
import { SnapshotOffset } from './snapshot-codec';

/** Runs `edit` on the raw snapshot sublevel of a closed store's directory. */
async function editRawSnapshots(
  dir: string,
  edit: (snapshots: ClassicLevel<Buffer, Buffer>) => Promise<void>,
): Promise<void> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const snapshots = db.sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.snapshot, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    await edit(snapshots as unknown as ClassicLevel<Buffer, Buffer>);
  } finally {
    await db.close();
  }
}

describe('JournalStore snapshots', () => {
  let dir: string;
  let store: JournalStore | undefined;

  async function open(snapshotsKept?: number): Promise<JournalStore> {
    store = await JournalStore.open(dir, { snapshotsKept });
    return store;
  }

  async function openWithEntries(count: number, snapshotsKept?: number): Promise<JournalStore> {
    const opened = await open(snapshotsKept);
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        opened.append({
          kind: EntryKind.Command,
          client: '1'.repeat(32),
          session: 1,
          request: i + 1,
          userId: 1,
          requestChecksum: Buffer.alloc(16),
          body: Buffer.alloc(0),
        }),
      ),
    );
    return opened;
  }

  beforeEach(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'once-journal-snapshot-'));
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('lists snapshots newest first and keeps only snapshotsKept (default 2)', async () => {
    const opened = await openWithEntries(30);
    expect(await opened.listSnapshots()).toEqual([]);
    await opened.saveSnapshot(10, Buffer.from('state@10'));
    await opened.saveSnapshot(20, Buffer.from('state@20'));
    await opened.saveSnapshot(30, Buffer.from('state@30'));
    const expected = [
      { op: 30, payload: Buffer.from('state@30') },
      { op: 20, payload: Buffer.from('state@20') },
    ];
    expect(await opened.listSnapshots()).toEqual(expected);
    await opened.close();
    expect(await (await open()).listSnapshots()).toEqual(expected);
  });

  it('honours snapshotsKept', async () => {
    const opened = await openWithEntries(5, 3);
    for (const op of [1, 2, 3, 4, 5]) await opened.saveSnapshot(op, Buffer.from([op]));
    expect((await opened.listSnapshots()).map((record) => record.op)).toEqual([5, 4, 3]);
    await expect(JournalStore.open(dir, { snapshotsKept: 0 })).rejects.toThrow(RangeError);
  });

  it('reports corrupted, truncated and misplaced snapshots as error records', async () => {
    const opened = await openWithEntries(3, 5);
    await opened.saveSnapshot(1, Buffer.from('one'));
    await opened.saveSnapshot(2, Buffer.from('two'));
    await opened.saveSnapshot(3, Buffer.from('three'));
    await opened.close();
    await editRawSnapshots(dir, async (snapshots) => {
      const three = (await snapshots.get(encodeOpKey(3)))!;
      three[SnapshotOffset.payload + 1] ^= 0xff;
      await snapshots.put(encodeOpKey(3), three);
      const two = (await snapshots.get(encodeOpKey(2)))!;
      await snapshots.put(encodeOpKey(2), two.subarray(0, 20));
      const one = (await snapshots.get(encodeOpKey(1)))!;
      await snapshots.put(encodeOpKey(4), one); // valid bytes, wrong key
    });

    const records = await (await open(5)).listSnapshots();
    expect(records).toEqual([
      { op: 4, error: 'snapshot at op 4 is corrupt: it records op 1' },
      { op: 3, error: 'snapshot at op 3 is corrupt: checksum mismatch' },
      { op: 2, error: expect.stringContaining('snapshot at op 2 is truncated') as string },
      { op: 1, payload: Buffer.from('one') },
    ]);
  });

  it('drops the snapshots that include truncated entries', async () => {
    const opened = await openWithEntries(6, 5);
    for (const op of [2, 4, 6]) await opened.saveSnapshot(op, Buffer.from([op]));
    expect(await opened.truncateFrom(4)).toBe(3);
    expect((await opened.listSnapshots()).map((record) => record.op)).toEqual([2]);
  });
});
