import { JournalStore } from '@once/journal/internal';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from './cli-error';

/**
 * Why the CLI reads only stopped data directories: LevelDB takes a lock on
 * open, so while a node runs, its directory cannot be opened by another
 * process at all. The message says so, since "lock held" alone does not tell
 * an operator what to do.
 */
export function inUseError(dataDir: string): CliError {
  return new CliError(
    'DATA_DIR_IN_USE',
    `the data directory ${resolve(dataDir)} is in use: a running node holds its LevelDB lock. ` +
      'Stop the node first (this command reads stopped directories only), or ask the running node with `once status`.',
  );
}

/**
 * Throws unless `dataDir` holds a data directory: `JournalStore.open` would
 * create a new, empty one, which is never what an inspection means.
 */
export function assertDataDirExists(dataDir: string): void {
  if (!existsSync(join(dataDir, 'leveldb'))) {
    throw new CliError(
      'NO_DATA_DIR',
      `no data directory at ${resolve(dataDir)} (no leveldb inside); pass --data-dir`,
    );
  }
}

/** Maps a failure to open a data directory to the CLI's error, when it is one it explains. */
export function openFailure(dataDir: string, error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code === 'DATA_DIR_IN_USE') return inUseError(dataDir);
  return error;
}

/**
 * Opens the journal of a stopped data directory; the caller closes it.
 *
 * A directory of an older format is refused (`FORMAT_UPGRADE_NEEDED`), not
 * upgraded: the CLI's reads promise to write nothing, and the node upgrades
 * the directory itself at its first start, logging it, where an operator
 * expects it.
 */
export async function openStoppedJournal(dataDir: string): Promise<JournalStore> {
  assertDataDirExists(dataDir);
  try {
    return await JournalStore.open(dataDir, { upgradeFormat: false });
  } catch (error) {
    throw openFailure(dataDir, error);
  }
}

/** Runs `work` on the journal of the stopped `dataDir`, closing it after. */
export async function withStoppedJournal<T>(
  dataDir: string,
  work: (journal: JournalStore) => Promise<T>,
): Promise<T> {
  const journal = await openStoppedJournal(dataDir);
  try {
    return await work(journal);
  } finally {
    await journal.close();
  }
}

/**
 * Throws `FORMAT_UPGRADE_NEEDED` when the stopped `dataDir` is of an older
 * format (see {@link openStoppedJournal}): called before a replay through the
 * app's modules, whose node would upgrade it at open.
 */
export async function assertCurrentFormat(dataDir: string): Promise<void> {
  const journal = await openStoppedJournal(dataDir);
  await journal.close();
}
