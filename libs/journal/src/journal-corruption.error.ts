/**
 * A stored journal entry failed verification: wrong length, checksum mismatch,
 * unknown kind, an op that is not the one its key (or its position) promises,
 * or a gap in the op sequence.
 *
 * Why a dedicated error: replay must stop at the first bad entry rather than
 * rebuild state from a journal with a hole in it, and the operator needs the op
 * to repair from (`JournalStore.truncateFrom(op)`).
 */
export class JournalCorruptionError extends Error {
  readonly code = 'JOURNAL_CORRUPT';
  override readonly name = 'JournalCorruptionError';

  /**
   * @param op the op that is bad (or missing), i.e. where a repair would start
   * @param reason what failed, e.g. "checksum mismatch"
   */
  constructor(
    readonly op: number,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`journal entry at op ${op} is corrupt: ${reason}`, options);
  }
}
