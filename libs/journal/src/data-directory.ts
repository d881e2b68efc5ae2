import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';

/** Owner only: the directory holds the node secret and every client's data. */
const DATA_DIR_MODE = 0o700;

/** Where each part of a data directory lives. */
export interface DataDirectoryPaths {
  /** Absolute path of the data directory. */
  readonly dir: string;
  /** The LevelDB database (journal, snapshots, meta). */
  readonly leveldb: string;
  /** The node secret, 32 raw bytes. */
  readonly nodeSecret: string;
}

/** The paths of the data directory `dir` (resolved to an absolute path). */
export function dataDirectoryPaths(dir: string): DataDirectoryPaths {
  const absolute = resolve(dir);
  return {
    dir: absolute,
    leveldb: join(absolute, 'leveldb'),
    nodeSecret: join(absolute, 'node-secret'),
  };
}

/** Creates the data directory (mode 0700) when it does not exist yet. */
export async function ensureDataDirectory(dir: string): Promise<void> {
  const created = await fs.mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
  // mkdir's mode passes through the umask; a new directory gets exactly 0700.
  if (created !== undefined) await fs.chmod(dir, DATA_DIR_MODE);
}
