/**
 * The bytes given to `ClientTable.restore` are not a snapshot this code wrote:
 * truncated, garbled, of an unknown format version, or describing a table that breaks
 * an invariant. Every failure of restore surfaces as this error (never as a RangeError
 * from a Buffer read), so a caller needs one `code` check to fall back to a full replay.
 *
 * The same holds for a table kept as per-session records: a record `decodeEntryRecord`
 * refuses (its message names the client), or a header and entries `ClientTable.fromEntries`
 * refuses (a lost or extra record, a session breaking an invariant).
 */
export class TableSnapshotInvalidError extends Error {
  readonly code = 'TABLE_SNAPSHOT_INVALID' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TableSnapshotInvalidError';
  }
}
