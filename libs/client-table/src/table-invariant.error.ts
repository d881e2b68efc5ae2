/**
 * A broken invariant of the client table: the caller applied something the journal
 * order can never produce (an op that does not grow, a reply for the wrong request
 * number, a stale epoch...).
 *
 * Why an error and not a silent fix: the table is a projection of the journal, so a
 * call that breaks an invariant means the engine and the journal disagree. Going on
 * would make replay diverge from the live state; stopping loudly is the only safe answer.
 */
export class TableInvariantError extends Error {
  readonly code = 'TABLE_INVARIANT' as const;

  constructor(message: string) {
    super(message);
    this.name = 'TableInvariantError';
  }
}
