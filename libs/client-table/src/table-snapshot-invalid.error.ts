/**
 * The bytes given to `ClientTable.restore` are not a snapshot this code wrote:
 * truncated, garbled, of an unknown format version, or describing a table that breaks
 * an invariant. Every failure of restore surfaces as this error (never as a RangeError
 * from a Buffer read), so a caller needs one `code` check to fall back to a full replay.
 */
export class TableSnapshotInvalidError extends Error {
  readonly code = 'TABLE_SNAPSHOT_INVALID' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TableSnapshotInvalidError';
  }
}
