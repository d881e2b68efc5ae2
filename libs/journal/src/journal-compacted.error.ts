/**
 * A read asked for ops that retention deleted: the journal now starts at
 * `firstOp`, and a snapshot stands for what came before. Not a corruption:
 * the operator chose to keep only recent history (`retainSnapshots`).
 */
export class JournalCompactedError extends Error {
  readonly code = 'JOURNAL_COMPACTED';
  override readonly name = 'JournalCompactedError';

  /**
   * @param requestedOp the op asked for
   * @param firstOp the journal's first op
   * @param detail replaces the message's reason (e.g. why a truncation is refused)
   */
  constructor(
    readonly requestedOp: number,
    readonly firstOp: number,
    detail?: { truncation: string },
  ) {
    super(
      detail?.truncation ??
        `op ${requestedOp} is no longer in the journal: ops below ${firstOp} were compacted away (a snapshot covers them)`,
    );
  }
}
