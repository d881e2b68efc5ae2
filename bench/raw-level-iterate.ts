import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Command } from 'commander';

/** The JSON line raw-level-iterate prints. */
export interface RawIterateReport {
  readonly entries: number;
  readonly durationMs: number;
  readonly entriesPerSecond: number;
}

/** Rows per iterator step: the replay saga's default batch size. */
const ROWS_PER_STEP = 1024;

/**
 * Child entry: the ceiling replay is measured against. Opens a data
 * directory's LevelDB, then walks its `journal` sublevel with a bare iterator
 * and `nextv(1024)` counting rows, decoding nothing: keys and values, at
 * LevelDB's default of 16 KiB per step. (Replay reads values only, up to
 * 1 MiB per step, which costs the main thread less per row; this iterator
 * is kept as it was so that the figure stays comparable across versions.)
 * The clock starts after the open, as the service's replay clock starts
 * after its own.
 */
async function main(): Promise<void> {
  const { dataDir } = new Command()
    .requiredOption('--data-dir <dir>', 'a once data directory (not in use)')
    .parse(process.argv)
    .opts<{ dataDir: string }>();
  const db = new ClassicLevel<Buffer, Buffer>(join(dataDir, 'leveldb'), {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    createIfMissing: false,
  });
  await db.open();
  try {
    const journal = db.sublevel<Buffer, Buffer>('journal', {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    });
    const startedMs = performance.now();
    const iterator = journal.iterator();
    let entries = 0;
    try {
      for (;;) {
        const rows = await iterator.nextv(ROWS_PER_STEP);
        if (rows.length === 0) break;
        entries += rows.length;
      }
    } finally {
      await iterator.close();
    }
    const durationMs = performance.now() - startedMs;
    const report: RawIterateReport = {
      entries,
      durationMs,
      entriesPerSecond: (entries * 1000) / durationMs,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `raw-level-iterate: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
