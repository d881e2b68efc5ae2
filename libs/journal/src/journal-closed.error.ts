/** An operation was called on a store that is closing or closed. */
export class JournalClosedError extends Error {
  readonly code = 'JOURNAL_CLOSED';
  override readonly name = 'JournalClosedError';

  constructor(
    readonly dir: string,
    operation: string,
  ) {
    super(`cannot ${operation}: the journal store of ${dir} is closed`);
  }
}
