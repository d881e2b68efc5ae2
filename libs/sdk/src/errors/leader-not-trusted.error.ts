import { type LeaderHintTrust } from '../leader-trust';
import { describeAnswer, type NodeAnswer } from '../node-answer';
import { OnceError } from './once.error';

/**
 * The node the client reached is a follower whose leader is at an address the
 * client does not connect to (see `trustLeaderHints`): not one of its
 * configured nodes, and not named over a verified TLS connection. The client
 * did not connect there (a forged or stale hint must not receive the
 * credentials); `connect()` fails at once rather than retrying a node that
 * will never serve. `node`, `role` and `leader` say what was answered.
 *
 * The fix is the client's configuration: list the leader's address in
 * `nodes` (every node of the cluster, as each advertises itself), connect
 * with verified TLS, or, where the network and NATS are trusted, set
 * `trustLeaderHints: 'any'`.
 */
export class LeaderNotTrustedError extends OnceError {
  override readonly name = 'LeaderNotTrustedError';
  declare readonly code: 'LEADER_NOT_TRUSTED';
  /** The follower reached, `host:port`. */
  readonly node: string;
  readonly role: NodeAnswer['role'];
  /** The leader it named, `host:port`. */
  readonly leader: string;
  readonly status: NodeAnswer['status'];
  /** The client's `trustLeaderHints`. */
  readonly trust: LeaderHintTrust;

  constructor(answer: NodeAnswer & { leader: string }, trust: LeaderHintTrust, why: string) {
    super(
      'LEADER_NOT_TRUSTED',
      `${describeAnswer(answer)}; not followed: ${why}. ` +
        `Add ${answer.leader} to the client's nodes${trust === 'configured' ? '' : ', connect with verified TLS,'} or set trustLeaderHints: 'any' if the network and the cluster's NATS are trusted`,
    );
    this.node = answer.node;
    this.role = answer.role;
    this.leader = answer.leader;
    this.status = answer.status;
    this.trust = trust;
  }
}
