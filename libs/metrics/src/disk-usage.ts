import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The bytes of the files of one directory (LevelDB keeps its files flat),
 * measured when asked: a scrape lists and stats a few dozen files, and
 * concurrent scrapes share one measurement. A file deleted between the
 * listing and its stat (a compaction) counts as 0.
 */
export class DiskUsage {
  private running: Promise<number | undefined> | undefined;

  /** The total size in bytes, or undefined when the directory cannot be read. */
  of(dir: string): Promise<number | undefined> {
    this.running ??= measure(dir).finally(() => {
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
