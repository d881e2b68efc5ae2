/**
 * A node's answer that kept the client from binding a session there: what an
 * error or an event reports so that the caller can see where the client was
 * and what it was told, instead of a bare "no session bound".
 */
export interface NodeAnswer {
  /** The node that answered, `host:port` as the client dialled it. */
  readonly node: string;
  /** Its status: NOT_READY (it replays, stops, is a follower, or knows no leader). */
  readonly status: 'NOT_READY';
  /**
   * `'follower'`: it named another node as its leader (`leader`); `'none'`:
   * it named none (a cluster between two leaders, or a node replaying or
   * stopping), as PING's `role` says of a node that knows no live holder.
   */
  readonly role: 'follower' | 'none';
  /** The leader it named (`host:port`, as its NOT_READY said), if any. */
  readonly leader: string | undefined;
}

/** One line for logs and error messages: `127.0.0.1:7702 is a follower (NOT_READY); it names … as the leader`. */
export function describeAnswer(answer: NodeAnswer): string {
  if (answer.role === 'follower') {
    return `${answer.node} is a follower (${answer.status}); it names ${answer.leader} as the leader`;
  }
  return answer.leader === undefined
    ? `${answer.node} is not ready (${answer.status}) and names no leader`
    : `${answer.node} is not ready (${answer.status}); it names itself as the leader`;
}
