/**
 * Another process (or another open store in this process) holds the data
 * directory's LevelDB lock.
 *
 * Why translate it: two writers on one journal would assign the same ops twice;
 * the operator needs to hear "another node runs on this directory", not a
 * LevelDB IO error.
 */
export class DataDirectoryInUseError extends Error {
  readonly code = 'DATA_DIR_IN_USE';
  override readonly name = 'DataDirectoryInUseError';

  constructor(
    readonly dir: string,
    options?: ErrorOptions,
    /** Who holds the lock: another process, or an open store of this one (an earlier open not yet closed). */
    readonly holder: 'another-process' | 'this-process' = 'another-process',
  ) {
    super(
      holder === 'this-process'
        ? `data directory ${dir} is already open in this process (LevelDB lock held): close the earlier store first`
        : `data directory ${dir} is in use by another process (LevelDB lock held)`,
      options,
    );
  }
}
