/**
 * A stream message that does not verify under this node's cluster key: its
 * MAC is missing, or was made with another key, or over other bytes or at
 * another position. The node cannot tell a forgery from a node given another
 * key, so the code says what is known. It applies nothing of the message,
 * stops applying the journal there, and neither serves nor leads.
 */
export class JournalGroupUnverifiedError extends Error {
  readonly code = 'JOURNAL_GROUP_UNVERIFIED';

  constructor(
    /** The op the message claims to start at (what the node stopped before). */
    readonly op: number,
    /** The stream sequence of the message. */
    readonly seq: number,
    reason: string,
  ) {
    super(
      `stream message ${seq} (op ${op} on) does not verify under this node's cluster key: ${reason}; nothing of it is applied (a message not written by a node with this key, or a node with another ONCE_CLUSTER_KEY_FILE)`,
    );
    this.name = 'JournalGroupUnverifiedError';
  }
}
