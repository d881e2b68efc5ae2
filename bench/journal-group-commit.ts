import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ENTRY_HEADER_BYTES, type EntryDraft, JournalStore } from '@once/journal/internal';
import { EntryKind } from '@once/journal';
import { ZERO_CHECKSUM, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { LatencySamples } from './latency-samples';
import { readLevelDbActivity } from './leveldb-info-log';
import { arrivalTimes, offerArrivals, openLoopDiskOptions } from './open-loop-arrivals';
import { type RawGroupCommitReport } from './raw-level-group-commit';

/**
 * Child entry (a diagnostic, not part of `npm run bench`): the same open
 * loop as raw-level-group-commit, through the service's JournalStore instead
 * of a bare LevelDB. Its data directory, LevelDB settings, meta record and
 * group commit are the service's; what it leaves out is the network, the
 * admission and the apply. Next to raw-level-group-commit at the same rate it
 * tells whether a tail comes from the journal layer or from the rest of the
 * service's main thread.
 */
async function main(): Promise<void> {
  const options = openLoopDiskOptions(process.argv, 'a data directory (removed afterwards)');
  const store = await JournalStore.open(options.dir);
  try {
    const report = await measure(store, options);
    await store.close();
    const activity = await readLevelDbActivity(join(options.dir, 'leveldb'));
    process.stdout.write(`${JSON.stringify({ ...report, leveldb: activity })}\n`);
  } finally {
    await store.close();
    await rm(options.dir, { recursive: true, force: true });
  }
}

async function measure(
  store: JournalStore,
  options: { ratePerSecond: number; valueBytes: number; warmupMs: number; durationMs: number },
): Promise<Omit<RawGroupCommitReport, 'leveldb'>> {
  const draft: EntryDraft = {
    kind: EntryKind.Command,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: ZERO_CHECKSUM,
    body: randomBytes(Math.max(0, options.valueBytes - ENTRY_HEADER_BYTES)),
  };
  const latencies = new LatencySamples();
  const writes = new LatencySamples();
  // Arrival time of each op not yet durable, by op - firstOp.
  const arrivedMs: number[] = [];
  const firstOp = store.lastOp + 1;
  let acknowledged = 0;
  let batches = 0;
  let batchedEntries = 0;
  const times = arrivalTimes(options.warmupMs, options.durationMs);
  const { startMs, endMs } = times;
  const inWindow = (ms: number) => ms >= startMs && ms < endMs;
  store.onBatchWritten((entryCount, writeMs) => {
    if (!inWindow(performance.now() - writeMs)) return;
    writes.add(writeMs);
    batches++;
    batchedEntries += entryCount;
  });
  store.onDurable((entries) => {
    const nowMs = performance.now();
    for (const entry of entries) {
      const arrived = arrivedMs[entry.op - firstOp];
      if (inWindow(arrived)) {
        latencies.add(nowMs - arrived);
        acknowledged++;
      }
    }
  });
  await offerArrivals(
    times,
    options.ratePerSecond,
    (count, nowMs) => {
      for (let i = 0; i < count; i++) {
        arrivedMs.push(nowMs);
        store.enqueue(draft);
      }
    },
    () => store.failed !== undefined,
  );
  while (store.pendingCount > 0 && store.failed === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (store.failed !== undefined) throw store.failed;
  return {
    ratePerSecond: options.ratePerSecond,
    valueBytes: options.valueBytes,
    acknowledgedPerSecond: (acknowledged * 1000) / options.durationMs,
    latency: latencies.summary(),
    batches,
    meanGroupSize: batches > 0 ? batchedEntries / batches : 0,
    batchWrite: writes.summary(),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(
    `journal-group-commit: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
