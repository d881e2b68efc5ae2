import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Command } from 'commander';
import { nonNegativeInteger, positiveInteger } from './cli-numbers';

/** The JSON line raw-level-batch prints. */
export interface RawBatchReport {
  readonly groupSize: number;
  readonly valueBytes: number;
  readonly batches: number;
  readonly entriesPerSecond: number;
  readonly batchesPerSecond: number;
  readonly meanBatchMs: number;
}

/**
 * Child entry: the ceiling the journal's group commit is measured against.
 * Synced `batch(…, { sync: true })` writes of `--group-size` entries of
 * `--value-bytes` each, one after the other, through the root database into a
 * `journal` sublevel with 8-byte big-endian op keys, exactly as JournalStore
 * writes them: no server, no encoding, no apply. Entries per second.
 */
async function main(): Promise<void> {
  const options = new Command()
    .requiredOption('--dir <dir>', 'a directory for the database (removed afterwards)')
    .requiredOption('--group-size <entries>', 'entries per synced batch', positiveInteger)
    .requiredOption('--value-bytes <bytes>', 'bytes per entry value', positiveInteger)
    .option('--warmup-ms <ms>', 'warm-up', nonNegativeInteger, 1000)
    .option('--duration-ms <ms>', 'measurement window', positiveInteger, 5000)
    .parse(process.argv)
    .opts<{
      dir: string;
      groupSize: number;
      valueBytes: number;
      warmupMs: number;
      durationMs: number;
    }>();

  const db = new ClassicLevel<Buffer, Buffer>(join(options.dir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  try {
    await db.open();
    const journal = db.sublevel<Buffer, Buffer>('journal', {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    // Stored entries are mostly distinct bytes; one random value is enough
    // because the write-ahead log does not compress.
    const value = randomBytes(options.valueBytes);
    let op = 0;
    const writeOneBatch = () => {
      const operations = new Array<{
        type: 'put';
        sublevel: typeof journal;
        key: Buffer;
        value: Buffer;
      }>(options.groupSize);
      for (let i = 0; i < options.groupSize; i++) {
        const key = Buffer.alloc(8);
        key.writeBigUInt64BE(BigInt(++op));
        operations[i] = { type: 'put', sublevel: journal, key, value };
      }
      return db.batch(operations, { sync: true });
    };

    const startMs = performance.now() + options.warmupMs;
    const endMs = startMs + options.durationMs;
    let batches = 0;
    let windowStartedMs = Number.NaN;
    for (;;) {
      await writeOneBatch();
      const now = performance.now();
      if (now < startMs) continue;
      if (Number.isNaN(windowStartedMs)) {
        windowStartedMs = now;
        continue;
      }
      batches++;
      if (now >= endMs) {
        const elapsedMs = now - windowStartedMs;
        const report: RawBatchReport = {
          groupSize: options.groupSize,
          valueBytes: options.valueBytes,
          batches,
          entriesPerSecond: (batches * options.groupSize * 1000) / elapsedMs,
          batchesPerSecond: (batches * 1000) / elapsedMs,
          meanBatchMs: elapsedMs / batches,
        };
        process.stdout.write(`${JSON.stringify(report)}\n`);
        return;
      }
    }
  } finally {
    await db.close();
    await rm(options.dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `raw-level-batch: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
