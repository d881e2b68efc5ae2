import { type JournalLevel, type Level, type MetaLevel } from './leveldb-layout';
import { encodeOpKey } from './op-key';
import { type SnapshotRecord } from './snapshot-codec';

/**
 * The meta sublevel's key for the journal's first op once compacted: ops
 * below it may be gone. Absent: the journal holds every op from 1. It is
 * written (synced) before the first delete of a compaction, so a journal
 * whose first key is above 1 is either compacted on purpose (the key says
 * so) or corrupt (it does not).
 */
export const FIRST_OP_KEY = 'journal-first-op';

/** What one compaction did. */
export interface CompactionResult {
  /** The journal's first op after it (unchanged when there was nothing to delete). */
  readonly firstOp: number;
  /** Entries deleted. */
  readonly deletedEntries: number;
  /** Synced delete batches written. */
  readonly batches: number;
  /** Whether it stopped early (the store closing, or a failed batch left for the next run). */
  readonly interrupted: boolean;
}

/** Reads the recorded first op (1 when never compacted). */
export async function readFirstOp(metaLevel: MetaLevel): Promise<number> {
  const text = await metaLevel.get(FIRST_OP_KEY);
  if (text === undefined) return 1;
  const op = Number(text);
  return Number.isSafeInteger(op) && op >= 1 ? op : 1;
}

/**
 * The op the journal may start at when it keeps the history of the newest
 * `retainSnapshots` readable snapshots: the oldest of them. A snapshot at op
 * S stands for ops 1..S, so ops below S can go; op S itself stays, so the
 * journal is never emptied (its last entry gives the next op and the last
 * timestamp). Undefined when fewer readable snapshots exist (a torn or
 * corrupt one does not count: it could not stand for anything).
 */
export function retentionStart(
  snapshots: readonly SnapshotRecord[],
  retainSnapshots: number,
  durableOp: number,
): number | undefined {
  const readable = snapshots
    .filter((record) => 'payload' in record && record.op <= durableOp && record.op >= 1)
    .map((record) => record.op)
    .sort((a, b) => b - a);
  if (readable.length < retainSnapshots) return undefined;
  return readable[retainSnapshots - 1];
}

/** What a compaction needs of the store. */
export interface CompactionTarget {
  readonly db: Level;
  readonly journal: JournalLevel;
  readonly metaLevel: MetaLevel;
  /** Keys per synced delete batch. */
  readonly batchKeys: number;
  /** Fault injection: called before each delete batch with its key count. */
  readonly beforeBatch?: (keyCount: number) => void | Promise<void>;
  /** True once the store is closing: the compaction stops between two batches. */
  readonly stopping: () => boolean;
}

/** Records `firstOp` as the journal's first op, synced, before anything below it is deleted. */
export async function recordFirstOp(target: CompactionTarget, firstOp: number): Promise<void> {
  await target.db.batch(
    [{ type: 'put', sublevel: target.metaLevel, key: FIRST_OP_KEY, value: String(firstOp) }],
    { sync: true },
  );
}

/**
 * Deletes every journal key below `firstOp`, lowest first, in synced batches
 * of at most `batchKeys` keys. Each batch is atomic in LevelDB, so a crash
 * leaves the journal contiguous from some op up to its end, every op at or
 * above `firstOp` intact; the next compaction deletes what is left. Between
 * batches the event loop runs, so appends keep being committed; LevelDB
 * serializes a delete batch with the appends' writes, so a commit waits at
 * most one batch.
 */
export async function deleteBelow(
  target: CompactionTarget,
  firstOp: number,
): Promise<{ deletedEntries: number; batches: number; interrupted: boolean }> {
  let deletedEntries = 0;
  let batches = 0;
  const iterator = target.journal.keys({ lt: encodeOpKey(firstOp) });
  try {
    for (;;) {
      if (target.stopping()) return { deletedEntries, batches, interrupted: true };
      const keys = await iterator.nextv(target.batchKeys);
      if (keys.length === 0) break;
      await target.beforeBatch?.(keys.length);
      await target.db.batch(
        keys.map((key) => ({ type: 'del' as const, sublevel: target.journal, key })),
        { sync: true },
      );
      deletedEntries += keys.length;
      batches++;
    }
  } finally {
    await iterator.close();
  }
  // Reclaim the deleted range's disk space now rather than whenever
  // LevelDB's own compactions reach those old, cold files.
  if (deletedEntries > 0 && !target.stopping()) {
    const prefix = (key: Buffer) =>
      Buffer.from(target.journal.prefixKey(key, 'buffer', false) as Uint8Array);
    await target.db.compactRange(prefix(encodeOpKey(0)), prefix(encodeOpKey(firstOp)));
  }
  return { deletedEntries, batches, interrupted: false };
}
