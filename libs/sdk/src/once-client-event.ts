import { type ClientId } from '@once/protocol';

/** How a session was bound again after a disconnect. */
export type ResumeHow = 'token' | 'register';

/**
 * What a client waits for before its next reconnect round (`waiting`):
 * - `'no-connection'`: the node could not be reached, or the connection dropped
 *   or bound nothing in time;
 * - `'not-ready'`: the node answered NOT_READY (it replays or stops, or is a
 *   cluster node that knows no leader, or whose hint was already followed);
 * - `'leader-not-trusted'`: the node is a follower naming a leader the client
 *   does not connect to (see `trustLeaderHints`); only a running client waits
 *   for this, `connect()` fails with LeaderNotTrustedError instead.
 */
export type WaitReason = 'no-connection' | 'not-ready' | 'leader-not-trusted';

/**
 * What `OnceClient.events$` reports. Informational: the SDK has already acted
 * on each (reconnected, resent, failed what was in doubt) when it is emitted.
 */
export type OnceClientEvent =
  /** A connection is bound to a new session (first connect, or after a lost session). */
  | { readonly type: 'connected'; readonly clientId: ClientId; readonly epoch: number }
  /**
   * A connection is bound to the session this client already held: by implicit
   * rebind with the resume token, or by REGISTER with the same client id (the
   * epoch then moved).
   */
  | {
      readonly type: 'resumed';
      readonly how: ResumeHow;
      readonly clientId: ClientId;
      readonly epoch: number;
    }
  /**
   * A connection is bound to a session on this node (emitted on every bind,
   * just before its `connected` or `resumed`): with `nodes`, which node the
   * client is on now. See also `OnceClient.node`.
   */
  | { readonly type: 'node'; readonly host: string; readonly port: number }
  /** The connection is gone; `reason` says why. The session is not (it is resumed). */
  | { readonly type: 'disconnected'; readonly reason: string }
  /**
   * The client waits `delayMs` before reconnect round `attempt` (1-based,
   * consecutive since the last bind), and says why: `node` (`host:port`) is
   * the node the last attempt went to, `reason` and `message` what it got
   * there, `leader` the leader that node named, if any. Emitted at every wait,
   * just before `reconnecting`, also during `connect()` (see the `onEvent`
   * option); the client's `logger` gets a line for it at a rate that does not
   * flood (the first, then at most one per 30 s).
   */
  | {
      readonly type: 'waiting';
      readonly reason: WaitReason;
      readonly node: string;
      readonly leader: string | undefined;
      readonly attempt: number;
      readonly delayMs: number;
      readonly message: string;
    }
  /**
   * A reconnect round (1-based, consecutive) starts after `delayMs`: one
   * attempt with a single node; with `nodes`, one attempt on each node in
   * turn, the next node tried at once when one fails.
   */
  | { readonly type: 'reconnecting'; readonly attempt: number; readonly delayMs: number }
  /**
   * The node ended the session (eviction reason name, or an SDK reason such as
   * SESSION_RESET). `requests` are the in-doubt request numbers, each failed
   * with OutcomeUnknownError; commands never sent continue under a fresh
   * session (new client id, numbering from 1).
   */
  | {
      readonly type: 'session-lost';
      readonly reason: string;
      readonly clientId: ClientId;
      readonly requests: readonly number[];
    };
