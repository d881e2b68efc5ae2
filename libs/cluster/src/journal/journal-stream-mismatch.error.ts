/**
 * The journal stream exists but is not configured as the journal needs (its
 * subject, file storage, denied deletes and purges, a duplicate window long
 * enough for republishing). Nothing is changed on it: an operator decides.
 */
export class JournalStreamMismatchError extends Error {
  readonly code = 'JOURNAL_STREAM_MISMATCH';
  override readonly name = 'JournalStreamMismatchError';

  constructor(
    readonly stream: string,
    reason: string,
  ) {
    super(`journal stream ${stream} cannot be used: ${reason}`);
  }
}
