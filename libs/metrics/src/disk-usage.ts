import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** How long one measurement is reused: LevelDB's files change by megabytes, not per second. */
const DEFAULT_MAX_AGE_MS = 10_000;

/**
 * The bytes of the files of one directory (LevelDB keeps its files flat),
 * measured when asked and reused for `maxAgeMs`: a measurement lists and
 * stats a few dozen files on libuv's thread pool, which LevelDB's own reads
 * and writes use too, so a node scraped every second does not pay it every
 * second. Concurrent scrapes share one measurement. A file deleted between
 * the listing and its stat (a compaction) counts as 0.
 */
export class DiskUsage {
  private running: Promise<number | undefined> | undefined;
  private last: { readonly dir: string; readonly atMs: number; readonly bytes: number } | undefined;

  constructor(private readonly maxAgeMs = DEFAULT_MAX_AGE_MS) {}

  /** The total size in bytes, or undefined when the directory cannot be read. */
  of(dir: string): Promise<number | undefined> {
    const last = this.last;
    if (last !== undefined && last.dir === dir && performance.now() - last.atMs < this.maxAgeMs) {
      return Promise.resolve(last.bytes);
    }
    this.running ??= measure(dir)
      .then((bytes) => {
        this.last = bytes === undefined ? undefined : { dir, atMs: performance.now(), bytes };
        return bytes;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}

async function measure(dir: string): Promise<number | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  const sizes = await Promise.all(
    names.map((name) =>
      stat(join(dir, name)).then(
        (info) => (info.isFile() ? info.size : 0),
        () => 0,
      ),
    ),
  );
  return sizes.reduce((total, size) => total + size, 0);
}
