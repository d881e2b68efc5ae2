/**
 * LevelDB could not open the data directory for a reason other than a held
 * lock (corruption, permissions, a missing file). The message carries
 * LevelDB's own reason, which classic-level otherwise keeps only in
 * `cause` behind a bare "Database failed to open".
 */
export class DataDirectoryUnreadableError extends Error {
  readonly code = 'DATA_DIR_UNREADABLE';
  override readonly name = 'DataDirectoryUnreadableError';

  constructor(
    readonly dir: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`LevelDB cannot open data directory ${dir}: ${reason}`, options);
  }
}
