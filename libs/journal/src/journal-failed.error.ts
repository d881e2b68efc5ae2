/**
 * A batch write to the journal failed (LevelDB, the disk, or the `beforeWrite`
 * fault-injection hook), so the store stopped accepting entries.
 *
 * Why fail-stop instead of retrying: after a failed synced write we no longer
 * know which ops reached the disk, and the engine must never acknowledge a
 * request whose entry is not durable. The only safe way on is a reopen, which
 * takes the journal's end from what is really on disk.
 */
export class JournalFailedError extends Error {
  readonly code = 'JOURNAL_FAILED';
  override readonly name = 'JournalFailedError';

  constructor(cause: unknown) {
    super(
      `journal write failed; the store accepts no more entries until it is reopened: ${describe(cause)}`,
      { cause },
    );
  }
}

/** The cause's message; duck-typed, since native and cross-realm errors fail `instanceof Error`. */
function describe(cause: unknown): string {
  const message = (cause as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : String(cause);
}
