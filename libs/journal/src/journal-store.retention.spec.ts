import { ClassicLevel } from 'classic-level';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalBusyError } from './journal-busy.error';
import { JournalCompactedError } from './journal-compacted.error';
import { type JournalEntry } from './journal-entry';
import { commandDraft as draft } from './__fixtures__/command-draft.fixture';
import { JournalStore, type JournalStoreOptions } from './journal-store';
import { decodeOpKey } from './op-key';

/**
 * Retention: with `retainSnapshots` the journal keeps the history from the
 * oldest of the newest N readable snapshots on, deletes the rest in the
 * background in bounded batches, records where it starts, and refuses reads
 * and repairs that would need what is gone.
 */

async function appendMany(store: JournalStore, count: number): Promise<JournalEntry[]> {
  const first = store.lastOp + 1;
  return Promise.all(Array.from({ length: count }, (_, i) => store.append(draft(first + i))));
}

/** Every op readable from `fromOp`, in order (the read itself checks they are contiguous). */
async function opsFrom(store: JournalStore, fromOp: number): Promise<number[]> {
  const ops: number[] = [];
  for await (const batch of store.readBatches(fromOp, 64)) ops.push(...batch.map((e) => e.op));
  return ops;
}

/** How many keys below `belowOp` a closed directory still holds (raw keys, not readBatches). */
async function leftoverCount(dir: string, belowOp: number): Promise<number> {
  const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    const journal = db.sublevel<Buffer, Buffer>('journal', {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    const keys = await journal.keys().all();
    return keys.filter((key) => (decodeOpKey(key) ?? Infinity) < belowOp).length;
  } finally {
    await db.close();
  }
}

/** Ops 1..count, with a snapshot after each of `snapshotOps`. */
async function history(
  store: JournalStore,
  count: number,
  snapshotOps: readonly number[],
): Promise<void> {
  for (const op of [...snapshotOps, count]) {
    if (op > store.lastOp) await appendMany(store, op - store.lastOp);
    if (snapshotOps.includes(op)) await store.saveSnapshot(op, Buffer.from(`state@${op}`));
  }
}

describe('JournalStore retention', () => {
  let dir: string;
  let store: JournalStore | undefined;
  const open = async (options: JournalStoreOptions = {}) => {
    store = await JournalStore.open(dir, options);
    return store;
  };

  beforeEach(async () => {
    dir = await fs.mkdtemp(join(tmpdir(), 'once-retention-'));
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('given retention of 2 snapshots, when snapshots are saved, then the entries below the older of the 2 newest are deleted and the start is recorded', async () => {
    const journal = await open({ retainSnapshots: 2 });
    await history(journal, 100, [30, 60, 90]);
    await journal.compact(); // joins the background run, or finds nothing left

    expect(journal.firstOp).toBe(60);
    expect(await opsFrom(journal, 60)).toEqual(Array.from({ length: 41 }, (_, i) => 60 + i));
    expect(() => journal.readBatches(59)).toThrow(JournalCompactedError);
    await journal.close();
    expect(await leftoverCount(dir, 60)).toBe(0);

    const reopened = await open();
    expect(reopened.firstOp).toBe(60);
    expect(reopened.lastOp).toBe(100);
    expect((await reopened.listSnapshots()).map((s) => s.op)).toEqual([90, 60]);
  });

  it('given history a killed node did not compact, when it is opened with retention, then it compacts at once, without waiting for a snapshot', async () => {
    const unretained = await open();
    await history(unretained, 100, [30, 60, 90]);
    await unretained.close();

    const compactions: number[] = [];
    const journal = await open({
      retainSnapshots: 2,
      onCompaction: (result) => void compactions.push(result.firstOp),
    });
    for (let waited = 0; compactions.length === 0 && waited < 5000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    expect(compactions).toEqual([60]);
    expect(journal.firstOp).toBe(60);
    expect(await opsFrom(journal, 60)).toHaveLength(41);
  });

  it('given no retention, when snapshots are saved, then every entry stays', async () => {
    const journal = await open();
    await history(journal, 50, [10, 20, 30]);
    expect(journal.firstOp).toBe(1);
    expect(await opsFrom(journal, 1)).toHaveLength(50);
  });

  it('given fewer readable snapshots than retained, when compacting, then nothing is deleted', async () => {
    const journal = await open({ retainSnapshots: 3 });
    await history(journal, 40, [10, 20]);
    const result = await journal.compact();
    expect(result).toMatchObject({ firstOp: 1, deletedEntries: 0 });
    expect(await opsFrom(journal, 1)).toHaveLength(40);
  });

  it('when compacting, then it deletes in batches of at most compactBatchKeys keys', async () => {
    const batches: number[] = [];
    const journal = await open({
      compactBatchKeys: 7,
      beforeCompactBatch: (keys) => void batches.push(keys),
    });
    await history(journal, 60, [20, 50]);
    const result = await journal.compact({ retainSnapshots: 2 });
    expect(result).toMatchObject({ firstOp: 20, deletedEntries: 19, batches: 3 });
    expect(batches).toEqual([7, 7, 5]);
  });

  it('given a compaction waiting between two batches, when entries are appended, then they become durable meanwhile', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let batches = 0;
    const journal = await open({
      compactBatchKeys: 10,
      beforeCompactBatch: async () => {
        if (++batches === 2) await held;
      },
    });
    await history(journal, 80, [40, 70]);
    const compaction = journal.compact({ retainSnapshots: 2 });
    while (batches < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    const appended = await appendMany(journal, 25);
    expect(journal.durableOp).toBe(105);
    expect(appended.at(-1)!.op).toBe(105);

    release();
    expect(await compaction).toMatchObject({ firstOp: 40, deletedEntries: 39 });
  });

  it('given a compaction interrupted after some batches, when the store is reopened, then the journal reads from its recorded start and the next compaction finishes the job', async () => {
    let batches = 0;
    const journal = await open({
      compactBatchKeys: 5,
      beforeCompactBatch: () => {
        if (++batches === 3) throw new Error('injected crash between two batches');
      },
    });
    await history(journal, 50, [20, 40]);
    await expect(journal.compact({ retainSnapshots: 2 })).rejects.toThrow('injected crash');
    // The store itself is healthy: the interruption is not a failed append.
    await appendMany(journal, 1);
    await journal.close();
    expect(await leftoverCount(dir, 20)).toBe(19 - 10);

    // Without retention, so that only the explicit compaction finishes the job.
    const reopened = await open({ compactBatchKeys: 5 });
    expect(reopened.firstOp).toBe(20);
    expect(await opsFrom(reopened, 20)).toHaveLength(32);
    expect(await reopened.compact({ retainSnapshots: 2 })).toMatchObject({
      firstOp: 20,
      deletedEntries: 9,
    });
    await reopened.close();
    expect(await leftoverCount(dir, 20)).toBe(0);
  });

  it('given a compacted journal, when a truncation would delete every snapshot covering its start, then it is refused', async () => {
    const journal = await open({ retainSnapshots: 2 });
    await history(journal, 100, [30, 60, 90]);
    await journal.compact();
    expect(journal.firstOp).toBe(60);

    await expect(journal.truncateFrom(60)).rejects.toThrow(JournalCompactedError);
    await expect(journal.truncateFrom(95)).resolves.toBe(6);
    expect(journal.lastOp).toBe(94);
    expect((await journal.listSnapshots()).map((s) => s.op)).toEqual([90, 60]);
  });

  it('given a compaction running, when a truncation is asked for, then it is refused as busy', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const journal = await open({ compactBatchKeys: 5, beforeCompactBatch: () => held });
    await history(journal, 40, [20, 30]);
    const compaction = journal.compact({ retainSnapshots: 2 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(journal.truncateFrom(35)).rejects.toThrow(JournalBusyError);
    release();
    await compaction;
  });
});
