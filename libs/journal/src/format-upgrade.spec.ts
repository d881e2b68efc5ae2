import { ClassicLevel } from 'classic-level';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type JournalEntry } from './journal-entry';
import { commandDraft as draft } from './__fixtures__/command-draft.fixture';
import { JournalStore } from './journal-store';
import { FORMAT_1_SUBLEVEL_NAMES, SUBLEVEL_NAMES } from './leveldb-layout';
import { FORMAT_VERSION } from './node-meta';

/**
 * The data directory's LevelDB layout: format 2 keeps every key other than
 * the journal's below them, and a directory written by format 1 (the
 * `__fixtures__/format-1` directory, written by the last build of format 1:
 * ops 30..40 after a compaction, snapshots at 20 and 30, settings written)
 * is upgraded in place when opened. Format 3 adds the keyed records; a
 * directory written by format 2 (`__fixtures__/format-2`, written by the
 * reference service of the last build of format 2, see
 * scripts/make-format-2-fixture.js: ops 1..27, its one snapshot at op 19)
 * is upgraded by rewriting its meta record alone.
 */

const FIXTURE = join(__dirname, '__fixtures__', 'format-1');
const FORMAT_2_FIXTURE = join(__dirname, '__fixtures__', 'format-2');

/** A copy of a committed fixture at `dir` (git keeps no file mode: the secret's is restored). */
async function copyFixture(fixture: string, dir: string): Promise<void> {
  await fs.cp(fixture, dir, { recursive: true });
  await fs.chmod(join(dir, 'node-secret'), 0o600);
}

/** Every raw row of a closed directory's LevelDB, keys and values in latin1, in LevelDB's order. */
async function rawRows(dir: string): Promise<Array<[string, string]>> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const rows = await db.iterator().all();
    return rows.map(([key, value]) => [key.toString('latin1'), value.toString('latin1')]);
  } finally {
    await db.close();
  }
}

const META_ROW = `!${SUBLEVEL_NAMES.meta}!meta`;

/** Every raw key of a closed directory's LevelDB, in LevelDB's order. */
async function rawKeys(dir: string): Promise<Buffer[]> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    return await db.keys().all();
  } finally {
    await db.close();
  }
}

async function readAll(store: JournalStore): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for await (const batch of store.readBatches(store.firstOp, 16)) entries.push(...batch);
  return entries;
}

/** Times LevelDB's info log (`LOG`, since the last open) says it ran a compaction. */
async function compactionsLogged(dir: string): Promise<number> {
  const log = await fs.readFile(join(dir, 'leveldb', 'LOG'), 'utf8');
  return log.split('\n').filter((line) => line.includes('Compacting ')).length;
}

describe('data directory format', () => {
  let dir: string;
  let store: JournalStore | undefined;

  beforeEach(async () => {
    dir = join(await fs.mkdtemp(join(tmpdir(), 'once-format-')), 'data');
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    await fs.rm(join(dir, '..'), { recursive: true, force: true });
  });

  it('given a format-1 directory, when opened, then it is upgraded with its identity, settings, snapshots and history', async () => {
    await copyFixture(FIXTURE, dir);
    const notices: string[] = [];

    store = await JournalStore.open(dir, { notice: (message) => notices.push(message) });

    expect(notices).toEqual([
      `data directory ${dir} upgraded to format 2`,
      `data directory ${dir} upgraded to format ${FORMAT_VERSION}`,
    ]);
    expect(store.meta).toMatchObject({ formatVersion: 3, settings: { fixture: 'format-1' } });
    expect(store.meta.secretFingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(store.firstOp).toBe(30);
    expect(store.lastOp).toBe(40);
    const snapshots = await store.listSnapshots();
    expect(snapshots).toEqual([
      { op: 30, payload: Buffer.from('state@30') },
      { op: 20, payload: Buffer.from('state@20') },
    ]);
    const entries = await readAll(store);
    expect(entries.map((entry) => entry.op)).toEqual(Array.from({ length: 11 }, (_, i) => 30 + i));
    expect(entries.map((entry) => entry.body.toString())).toEqual(
      entries.map((entry) => `{"pattern":"p","data":${entry.op}}`),
    );
    const appended = await store.append(draft(41, '{"pattern":"p","data":41}'));
    expect(appended.op).toBe(41);
    await store.close();
    store = undefined;

    const keys = (await rawKeys(dir)).map((key) => key.toString('latin1'));
    for (const name of Object.values(FORMAT_1_SUBLEVEL_NAMES)) {
      expect(keys.filter((key) => key.startsWith(`!${name}!`))).toEqual([]);
    }
    const reopenNotices: string[] = [];
    store = await JournalStore.open(dir, { notice: (message) => reopenNotices.push(message) });
    expect(reopenNotices).toEqual([]);
    expect(store.meta.settings).toEqual({ fixture: 'format-1' });
    expect(store.lastOp).toBe(41);
  });

  it('given a format-2 directory of the reference service, when opened, then only its meta record changes, to format 3, and its identity, settings, snapshot and history read as before', async () => {
    await copyFixture(FORMAT_2_FIXTURE, dir);
    const before = await rawRows(dir);
    const metaBefore = JSON.parse(before.find(([key]) => key === META_ROW)![1]);
    expect(metaBefore.formatVersion).toBe(2);
    const notices: string[] = [];

    store = await JournalStore.open(dir, { notice: (message) => notices.push(message) });

    expect(FORMAT_VERSION).toBe(3);
    expect(notices).toEqual([`data directory ${dir} upgraded to format 3`]);
    expect(store.meta).toEqual({ ...metaBefore, formatVersion: 3 });
    expect(store.keyed.head()).toBeUndefined();
    expect(store.firstOp).toBe(1);
    expect(store.lastOp).toBe(27);
    expect((await store.listSnapshots()).map((record) => record.op)).toEqual([19]);
    expect((await readAll(store)).map((entry) => entry.op)).toEqual(
      Array.from({ length: 27 }, (_, i) => i + 1),
    );
    await store.close();
    store = undefined;

    const after = await rawRows(dir);
    expect(after.map(([key]) => key)).toEqual(before.map(([key]) => key));
    expect(after.filter(([key]) => key !== META_ROW)).toEqual(
      before.filter(([key]) => key !== META_ROW),
    );
    expect(JSON.parse(after.find(([key]) => key === META_ROW)![1])).toEqual({
      ...metaBefore,
      formatVersion: 3,
    });
  });

  it('given a format-2 directory upgraded once, when opened again, then it is not upgraded again and opens unchanged', async () => {
    await copyFixture(FORMAT_2_FIXTURE, dir);
    store = await JournalStore.open(dir);
    await store.close();
    store = undefined;
    const upgraded = await rawRows(dir);
    const notices: string[] = [];

    store = await JournalStore.open(dir, { notice: (message) => notices.push(message) });
    expect(notices).toEqual([]);
    expect(store.meta.formatVersion).toBe(3);
    expect(store.lastOp).toBe(27);
    await store.close();
    store = undefined;

    expect(await rawRows(dir)).toEqual(upgraded);
  });

  it('given a format-2 directory that holds keyed records, when opened, then it is refused and left in format 2', async () => {
    await copyFixture(FORMAT_2_FIXTURE, dir);
    const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    await db.open();
    await db
      .sublevel<Buffer, Buffer>(SUBLEVEL_NAMES.keyed, {
        keyEncoding: 'buffer',
        valueEncoding: 'buffer',
      })
      .put(
        Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.from('ledger/accounts\u0000alice')]),
        Buffer.from('90'),
      );
    await db.close();
    const before = await rawRows(dir);

    await expect(JournalStore.open(dir)).rejects.toMatchObject({
      code: 'META_CORRUPT',
      message: expect.stringContaining('holds keyed records of format 3') as unknown,
    });
    expect(await rawRows(dir)).toEqual(before);
  });

  it('given a directory upgraded and then written by a build of format 1, when opened, then it is refused', async () => {
    store = await JournalStore.open(dir);
    await store.append(draft(1, '{}'));
    const meta = store.meta;
    await store.close();
    store = undefined;
    const db = new ClassicLevel(join(dir, 'leveldb'));
    await db.open();
    await db
      .sublevel(FORMAT_1_SUBLEVEL_NAMES.meta)
      .put('meta', JSON.stringify({ ...meta, formatVersion: 1 }));
    await db.close();

    await expect(JournalStore.open(dir)).rejects.toMatchObject({ code: 'META_CORRUPT' });
  });

  it('given meta, settings, snapshots and a compaction among appends, then every other key sorts before the journal', async () => {
    store = await JournalStore.open(dir);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store!.append(draft(i + 1, '{}'))));
    await store.saveSnapshot(20, Buffer.from('state@20'));
    await store.updateSettings({ a: 1 });
    await store.saveSnapshot(40, Buffer.from('state@40'));
    await store.compact({ retainSnapshots: 1 });
    await store.append(draft(51, '{}'));
    await store.close();
    store = undefined;

    const keys = (await rawKeys(dir)).map((key) => key.toString('latin1'));
    const journalPrefix = `!${SUBLEVEL_NAMES.journal}!`;
    const firstJournal = keys.findIndex((key) => key.startsWith(journalPrefix));
    expect(firstJournal).toBeGreaterThan(0);
    expect(keys.slice(firstJournal).every((key) => key.startsWith(journalPrefix))).toBe(true);
  });

  it('given a snapshot and settings written among appends, then LevelDB places the later flushes of the journal without compacting', async () => {
    // A snapshot and a settings write, then about five memtables (4 MiB each,
    // LevelDB's own size, set here: the store's default is larger) of entries
    // that do not compress. In format 1 the table holding the snapshot and
    // meta keys spanned every journal key appended later, so each flush
    // overlapped it, stayed in level 0, and was soon compacted into it.
    store = await JournalStore.open(dir, { leveldbWriteBufferBytes: 4 * 1024 * 1024 });
    const body = (): string => `{"pattern":"p","data":"${randomBytes(1024).toString('hex')}"}`;
    const appendRound = async (count: number): Promise<void> => {
      const first = store!.lastOp + 1;
      await Promise.all(
        Array.from({ length: count }, (_, i) => store!.append(draft(first + i, body()))),
      );
    };
    await appendRound(100);
    await store.saveSnapshot(store.lastOp, randomBytes(4096));
    await store.updateSettings({ written: true });
    for (let round = 0; round < 10; round++) await appendRound(1000);
    await store.close();
    store = undefined;

    const log = await fs.readFile(join(dir, 'leveldb', 'LOG'), 'utf8');
    expect(log.match(/Level-0 table #\d+: \d+ bytes/g)?.length).toBeGreaterThanOrEqual(4);
    expect(await compactionsLogged(dir)).toBe(0);
  });
});

describe('given a directory of an older format, opened with upgradeFormat: false (a read that writes nothing)', () => {
  let dir: string;

  beforeEach(() => {
    dir = join(tmpdir(), `once-format-read-${randomBytes(6).toString('hex')}`);
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('when it is format 1, whose keys would have to move, then open refuses it with FORMAT_UPGRADE_NEEDED and its rows are as they were', async () => {
    await copyFixture(FIXTURE, dir);
    const before = await rawRows(dir);
    const refusal = await JournalStore.open(dir, { upgradeFormat: false }).then(
      (opened) => opened.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({
      code: 'FORMAT_UPGRADE_NEEDED',
      formatVersion: 1,
      currentVersion: FORMAT_VERSION,
    });
    expect((refusal as Error).message).toContain('start the node on it once');
    expect(await rawRows(dir)).toEqual(before);
    // The refusal held no lock: the node's own open upgrades it.
    const store = await JournalStore.open(dir);
    await store.close();
  });

  it('when it is format 2, then it is read as it is (journal and snapshot) and its rows, meta record included, are as they were', async () => {
    await copyFixture(FORMAT_2_FIXTURE, dir);
    const before = await rawRows(dir);
    const store = await JournalStore.open(dir, { upgradeFormat: false });
    try {
      expect(store.lastOp).toBe(27);
      expect((await readAll(store)).map((entry) => entry.op)).toEqual(
        Array.from({ length: 27 }, (_, i) => i + 1),
      );
      expect((await store.listSnapshots()).map((snapshot) => snapshot.op)).toEqual([19]);
    } finally {
      await store.close();
    }
    expect(await rawRows(dir)).toEqual(before);
    expect(before.find(([key]) => key === META_ROW)?.[1]).toContain('"formatVersion":2');
  });

  it('when it is format 2, then a snapshot with keyed records is refused (they would make it a directory no build opens), and its rows are as they were', async () => {
    await copyFixture(FORMAT_2_FIXTURE, dir);
    const before = await rawRows(dir);
    const store = await JournalStore.open(dir, { upgradeFormat: false });
    try {
      const changes = [[Buffer.from('k'), Buffer.from('v')] as const][Symbol.iterator]();
      await expect(
        store.saveSnapshot(27, Buffer.from('state@27'), { generation: 1, changes }),
      ).rejects.toMatchObject({ code: 'FORMAT_UPGRADE_NEEDED', formatVersion: 2 });
    } finally {
      await store.close();
    }
    expect(await rawRows(dir)).toEqual(before);
  });

  it('when it is of the current format, then open reads it as usual', async () => {
    const created = await JournalStore.open(dir);
    await created.append(draft(1, '{}'));
    await created.close();
    const store = await JournalStore.open(dir, { upgradeFormat: false });
    expect(store.lastOp).toBe(1);
    await store.close();
  });
});
