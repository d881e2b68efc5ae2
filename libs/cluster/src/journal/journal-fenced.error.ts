/**
 * Another writer appended to the journal stream: a publish predicting the
 * stream's last sequence was refused (JetStream `wrong last sequence`), and
 * the message at that place is not this writer's.
 *
 * Why fail-stop: this writer's view of the journal's end is stale (typically
 * it lost the cluster lease and a new leader took over), so any op it assigns
 * now could collide with one already taken. It takes nothing more; its pending
 * entries are never reported durable, and none of them is in the stream.
 */
export class JournalFencedError extends Error {
  readonly code = 'JOURNAL_FENCED';
  override readonly name = 'JournalFencedError';

  /**
   * @param stream the journal stream
   * @param seq the stream sequence this writer expected to write
   * @param firstOp the first op of the refused group
   * @param found what holds that place instead
   */
  constructor(
    readonly stream: string,
    readonly seq: number,
    readonly firstOp: number,
    found: string,
  ) {
    super(
      `another writer appended to journal stream ${stream}: sequence ${seq} (ops from ${firstOp}) is ${found}; this writer takes no more entries`,
    );
  }
}
