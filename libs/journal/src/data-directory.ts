import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createNodeSecret, readNodeSecret, syncDirectory } from './node-secret';

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

/** Writes the initial LevelDB of a new directory at `leveldb` (meta record, synced) and closes it. */
export type LevelDbInitializer = (leveldb: string, nodeSecret: Buffer) => Promise<void>;

/** Names a creation in progress: `.<name>.creating-<pid>-<random>` beside what it creates. */
const CREATING = /^\.(.+)\.creating-(\d+)-[0-9a-f]+$/;

/**
 * Makes sure `paths` is a complete data directory, creating it atomically
 * when it has no LevelDB yet: the LevelDB (meta record written and synced)
 * and the node secret are built aside in a sibling temporary directory of
 * the same parent, every file and directory is synced, and only then is it
 * renamed into place and the parent synced. A crash at any point leaves
 * either no data directory or a complete one, never a LevelDB whose CURRENT
 * names a manifest that never reached the disk.
 *
 * When the directory exists without a LevelDB (an empty mount point, or a
 * node secret provisioned by the operator), only `leveldb/` is built aside,
 * inside it, and the secret there is adopted.
 *
 * Leftovers of a creation that was cut short (its process is gone) are
 * removed first; each removal is reported through `notice`.
 */
export async function prepareDataDirectory(
  paths: DataDirectoryPaths,
  initialize: LevelDbInitializer,
  notice: (message: string) => void,
): Promise<void> {
  await removeStaleCreations(dirname(paths.dir), basename(paths.dir), notice);
  if (await exists(paths.leveldb)) return;
  if (!(await exists(paths.dir))) {
    await fs.mkdir(dirname(paths.dir), { recursive: true });
    const aside = await makeAside(dirname(paths.dir), basename(paths.dir));
    try {
      await chmodExact(aside);
      const secret = await createNodeSecret(join(aside, 'node-secret'));
      await initialize(join(aside, 'leveldb'), secret);
      await syncTree(aside);
      if (await renameUnlessTaken(aside, paths.dir)) await syncDirectory(dirname(paths.dir));
    } finally {
      await fs.rm(aside, { recursive: true, force: true });
    }
    return;
  }
  await removeStaleCreations(paths.dir, 'leveldb', notice);
  const secret =
    (await readNodeSecret(paths.nodeSecret)) ?? (await createNodeSecret(paths.nodeSecret));
  const aside = await makeAside(paths.dir, 'leveldb');
  try {
    await initialize(aside, secret);
    await syncTree(aside);
    if (await renameUnlessTaken(aside, paths.leveldb)) await syncDirectory(paths.dir);
  } finally {
    await fs.rm(aside, { recursive: true, force: true });
  }
}

/**
 * When `leveldb` is a LevelDB that was never completely created (CURRENT
 * names an empty manifest) and holds no table and no logged write, the
 * manifest's name; otherwise undefined.
 */
export async function neverCompletedManifest(leveldb: string): Promise<string | undefined> {
  try {
    const manifest = (await fs.readFile(join(leveldb, 'CURRENT'), 'utf8')).trim();
    if (!/^MANIFEST-\d+$/.test(manifest)) return undefined;
    if ((await fs.stat(join(leveldb, manifest))).size !== 0) return undefined;
    for (const file of await fs.readdir(leveldb)) {
      if (/\.(ldb|sst)$/.test(file)) return undefined;
      if (/\.log$/.test(file) && (await fs.stat(join(leveldb, file))).size !== 0) return undefined;
    }
    return manifest;
  } catch {
    return undefined;
  }
}

async function makeAside(parent: string, name: string): Promise<string> {
  const aside = join(parent, `.${name}.creating-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fs.mkdir(aside, { mode: DATA_DIR_MODE });
  return aside;
}

/** Renames `from` to `to`; false (and nothing moved) when another creator got there first. */
async function renameUnlessTaken(from: string, to: string): Promise<boolean> {
  try {
    await fs.rename(from, to);
    return true;
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && (await exists(to))) return false;
    throw error;
  }
}

/** Removes `parent`'s leftovers of cut-short creations of `name` whose process is gone. */
async function removeStaleCreations(
  parent: string,
  name: string,
  notice: (message: string) => void,
): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(parent);
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = CREATING.exec(entry);
    if (!match || match[1] !== name || processIsAlive(Number(match[2]))) continue;
    const leftover = join(parent, entry);
    await fs.rm(leftover, { recursive: true, force: true });
    notice(
      `removed ${leftover}: what a creation of ${join(parent, name)} cut short left (never in use, nothing committed)`,
    );
  }
}

function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** fsync of every file under `dir`, then of each directory, deepest first. */
async function syncTree(dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await syncTree(path);
    } else if (entry.isFile()) {
      const handle = await fs.open(path, constants.O_RDONLY);
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }
  await syncDirectory(dir);
}

/** mkdir's mode passes through the umask; a new data directory gets exactly 0700. */
async function chmodExact(dir: string): Promise<void> {
  await fs.chmod(dir, DATA_DIR_MODE);
}

async function exists(path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
