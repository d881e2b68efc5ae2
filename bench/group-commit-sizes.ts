import { type WalBatch } from './leveldb-log-parser';

/** Group commits of the journal inside a time window. */
export interface GroupCommitSizes {
  /** Synced journal batches whose first entry was appended inside the window. */
  readonly batches: number;
  readonly entries: number;
  /** Mean entries per synced batch. */
  readonly avgGroupSize: number;
  /** Mean bytes per journal entry as stored: key, value. */
  readonly meanKeyBytes: number;
  readonly meanValueBytes: number;
}

/**
 * The journal's group commits between two Unix-epoch instants. A batch
 * belongs to the window by the journal timestamp of its first entry (the
 * service's clock at append time, the same wall clock as the load
 * generator's window on one machine). Batches without a journal entry (meta,
 * snapshots) are not group commits and are left out.
 */
export function groupCommitSizes(
  batches: readonly WalBatch[],
  startEpochMs: number,
  endEpochMs: number,
): GroupCommitSizes {
  const fromNs = BigInt(Math.round(startEpochMs * 1e6));
  const toNs = BigInt(Math.round(endEpochMs * 1e6));
  let count = 0;
  let entries = 0;
  let keyBytes = 0;
  let valueBytes = 0;
  for (const batch of batches) {
    const first = batch.firstTimestampNs;
    if (first === undefined || first < fromNs || first >= toNs) continue;
    count++;
    entries += batch.journalEntries;
    keyBytes += batch.journalKeyBytes;
    valueBytes += batch.journalValueBytes;
  }
  return {
    batches: count,
    entries,
    avgGroupSize: count > 0 ? entries / count : Number.NaN,
    meanKeyBytes: entries > 0 ? keyBytes / entries : Number.NaN,
    meanValueBytes: entries > 0 ? valueBytes / entries : Number.NaN,
  };
}
