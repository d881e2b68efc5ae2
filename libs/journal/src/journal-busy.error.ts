/**
 * Two operations that both move the journal's end would race: an operator
 * truncation while appends are in flight, or an append during a truncation.
 */
export class JournalBusyError extends Error {
  readonly code = 'JOURNAL_BUSY';
  override readonly name = 'JournalBusyError';

  constructor(operation: string, reason: string) {
    super(`cannot ${operation}: ${reason}`);
  }
}
