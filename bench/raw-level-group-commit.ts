import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { LatencySamples, type LatencySummary } from './latency-samples';
import { type LevelDbActivity, readLevelDbActivity } from './leveldb-info-log';
import { arrivalTimes, offerArrivals, openLoopDiskOptions } from './open-loop-arrivals';

/** The JSON line raw-level-group-commit prints. */
export interface RawGroupCommitReport {
  readonly ratePerSecond: number;
  readonly valueBytes: number;
  /** Requests acknowledged inside the window, per second. */
  readonly acknowledgedPerSecond: number;
  /** Arrival to acknowledgement of every request that arrived inside the window. */
  readonly latency: LatencySummary;
  /** Synced batches started inside the window, and their mean entry count. */
  readonly batches: number;
  readonly meanGroupSize: number;
  /** Duration of each synced batch write started inside the window. */
  readonly batchWrite: LatencySummary;
  /** What LevelDB flushed and compacted meanwhile, from its info log (whole run). */
  readonly leveldb: LevelDbActivity;
}

/** One batch's entries: their keys and arrival times. */
interface Group {
  readonly keys: Buffer[];
  readonly arrivedMs: number[];
}

/**
 * Child entry: the latency tail of the disk itself under the open loop's
 * offered rate. Requests arrive at `--rate-per-second` (a 1 ms timer, the
 * same as the load generator's open loop); each is one entry of
 * `--value-bytes` under the journal's key layout. They are group-committed
 * as the journal does it: one synced `batch` in flight, everything that
 * arrived while it synced goes into the next one; a request is acknowledged
 * when its batch's write resolves. Latency is arrival to acknowledgement:
 * no network, no encoding, no apply, so what is left is LevelDB and the disk.
 */
async function main(): Promise<void> {
  const options = openLoopDiskOptions(
    process.argv,
    'a directory for the database (removed afterwards)',
  );

  const leveldb = join(options.dir, 'leveldb');
  const db = new ClassicLevel<Buffer, Buffer>(leveldb, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  try {
    await db.open();
    const report = await measure(db, options);
    await db.close();
    const activity = await readLevelDbActivity(leveldb);
    process.stdout.write(`${JSON.stringify({ ...report, leveldb: activity })}\n`);
  } finally {
    await db.close();
    await rm(options.dir, { recursive: true, force: true });
  }
}

async function measure(
  db: ClassicLevel<Buffer, Buffer>,
  options: { ratePerSecond: number; valueBytes: number; warmupMs: number; durationMs: number },
): Promise<Omit<RawGroupCommitReport, 'leveldb'>> {
  // The journal sublevel's key prefix, then an 8-byte big-endian op, as JournalStore stores them.
  const prefix = Buffer.from('!journal!');
  const value = randomBytes(options.valueBytes);
  const latencies = new LatencySamples();
  const writes = new LatencySamples();
  const times = arrivalTimes(options.warmupMs, options.durationMs);
  const { startMs, endMs } = times;
  let op = 0;
  let acknowledged = 0;
  let batches = 0;
  let batchedEntries = 0;
  let collecting: Group = { keys: [], arrivedMs: [] };
  let writing = false;
  let failure: Error | undefined;
  let onIdle: (() => void) | undefined;

  const startWrite = (): void => {
    const group = collecting;
    collecting = { keys: [], arrivedMs: [] };
    writing = true;
    const writeStartedMs = performance.now();
    const inWindow = writeStartedMs >= startMs && writeStartedMs < endMs;
    if (inWindow) {
      batches++;
      batchedEntries += group.keys.length;
    }
    const operations = group.keys.map((key) => ({ type: 'put' as const, key, value }));
    db.batch(operations, { sync: true }).then(
      () => {
        const nowMs = performance.now();
        if (inWindow) writes.add(nowMs - writeStartedMs);
        for (const arrivedMs of group.arrivedMs) {
          if (arrivedMs >= startMs && arrivedMs < endMs) {
            latencies.add(nowMs - arrivedMs);
            acknowledged++;
          }
        }
        writing = false;
        if (collecting.keys.length > 0) startWrite();
        else onIdle?.();
      },
      (error: unknown) => {
        failure = error instanceof Error ? error : new Error(String(error));
        writing = false;
        onIdle?.();
      },
    );
  };

  await offerArrivals(
    times,
    options.ratePerSecond,
    (count, nowMs) => {
      for (let i = 0; i < count; i++) {
        const key = Buffer.allocUnsafe(prefix.length + 8);
        prefix.copy(key, 0);
        key.writeBigUInt64BE(BigInt(++op), prefix.length);
        collecting.keys.push(key);
        collecting.arrivedMs.push(nowMs);
      }
      if (!writing) startWrite();
    },
    () => failure !== undefined,
  );
  if (writing) await new Promise<void>((resolve) => (onIdle = resolve));
  if (failure !== undefined) throw failure;
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
    `raw-level-group-commit: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
