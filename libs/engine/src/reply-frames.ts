import { type JournalEntry } from '@once/journal/internal';
import {
  type ClientId,
  Command,
  type EvictionReason,
  type Frame,
  Operation,
  STATUS_NAMES,
  Status,
} from '@once/protocol';
import { encodeFrame, encodeReplyTo, errorBody, errorBodyText } from '@once/protocol/internal';

/**
 * The frames that answer a journal entry when it is applied: REPLY and
 * EVICTION, built only from the entry and the table's state at apply, so a
 * replay rebuilds them byte for byte (PROTOCOL.md, "Frames": every field of a
 * replicated reply comes from its journal entry).
 *
 * Field sources, by PROTOCOL.md header field:
 * - `client`, `session`, `request`: echoed from the entry (the request's own);
 * - `request_checksum` (offset 80): the entry's `requestChecksum`, i.e. the
 *   `checksum_body` of the request the frame answers (not on EVICTION);
 * - `op` and `timestamp`: the entry's op and journal time, on frames that
 *   answer a committed entry; 0 on refusals at apply, which commit nothing;
 * - `commit`: the entry's op (the node's highest committed op at that moment);
 * - `watermark`: a COMMAND/LOGOUT reply's own `request`, otherwise the
 *   session's highest committed request number.
 *
 * The second half of this module builds the frames the gateway answers with
 * before anything is journaled (refusals echoing the request, PING, EVICTIONs
 * nobody asked for): every frame a node sends is built here.
 */

/** PROTOCOL.md status 6's message, at admission and at apply alike. */
export const CLIENT_OWNED_BY_OTHER_USER_MESSAGE =
  'this client id belongs to another user’s session';

/** PROTOCOL.md status 7's message. */
export const EPOCH_AHEAD_MESSAGE = 'the session epoch is newer than the table’s';

/** PROTOCOL.md status 8's message: names the number the client must resend from. */
export function requestGapMessage(nextExpected: number): string {
  return `the next request number is ${nextExpected}`;
}

/**
 * The REPLY of an applied COMMAND or LOGOUT: status OK, `op` = `commit` = the
 * entry's op, `timestamp` its journal time, `watermark` its own `request`.
 * This is the frame the session's ring caches and a retry gets again.
 */
export function replicatedReply(
  entry: JournalEntry,
  operation: Operation.Command | Operation.Logout,
  body: Uint8Array | string,
): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation,
      status: Status.Ok,
      client: entry.client,
      session: entry.session,
      request: entry.request,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
      watermark: entry.request,
    },
    body,
    // A command's reply is cached for its session's life (handed to the table as it is).
    'exact',
  );
}

/** The session a committed REGISTER opened or resumed. */
export interface RegisteredEpoch {
  /** The new epoch: the REGISTER entry's op. */
  readonly epoch: number;
  /** The session's highest committed request number (0 for a new session). */
  readonly watermark: number;
  /** The HMAC resume token of (client, epoch), minted with the node secret. */
  readonly resumeToken: Buffer;
}

/**
 * The REPLY of a committed REGISTER (PROTOCOL.md, "REGISTER"): status OK,
 * `session` = `op` = `commit` = the new epoch, `watermark` the session's,
 * body `{"userId", "epoch", "watermark", "resumeToken"}`. `request` is 0.
 */
export function registerReply(entry: JournalEntry, registered: RegisteredEpoch): Buffer {
  const { epoch, watermark } = registered;
  const body = JSON.stringify({
    userId: entry.userId,
    epoch,
    watermark,
    resumeToken: registered.resumeToken.toString('hex'),
  });
  return encodeFrame(
    {
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.Ok,
      client: entry.client,
      session: epoch,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
      watermark,
    },
    body,
  );
}

/**
 * The REPLY of a REGISTER that committed but found the client id owned by
 * another user: status CLIENT_OWNED_BY_OTHER_USER, `op` = `commit` = the
 * entry's op (it is journaled, so a retry gets the same answer), `session`
 * and `watermark` 0 (no session is disclosed).
 */
export function ownedByOtherUserReply(entry: JournalEntry): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.ClientOwnedByOtherUser,
      client: entry.client,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
    },
    errorBody('CLIENT_OWNED_BY_OTHER_USER', CLIENT_OWNED_BY_OTHER_USER_MESSAGE),
  );
}

/**
 * The EVICTION answering a COMMAND or LOGOUT whose session is gone or fenced
 * by the time it applies: `status` the reason (NO_SESSION, EXPIRED or
 * SESSION_TOO_LOW), `commit` the entry's op, `watermark` the session's (0
 * without one); `op` and `timestamp` 0, since the request committed nothing.
 */
export function evictionAtApply(
  entry: JournalEntry,
  operation: Operation.Command | Operation.Logout,
  reason: EvictionReason,
  watermark: number,
): Buffer {
  return encodeFrame({
    command: Command.Eviction,
    operation,
    status: reason,
    client: entry.client,
    session: entry.session,
    request: entry.request,
    commit: entry.op,
    watermark,
  });
}

/** Why a request in the journal could not apply although its session holds. */
export type ApplyRefusal = 'epoch-ahead' | 'not-next';

/**
 * The REPLY refusing a COMMAND or LOGOUT at apply: EPOCH_AHEAD, or
 * REQUEST_GAP naming the next number (watermark + 1). `commit` the entry's
 * op, `watermark` the session's; `op` and `timestamp` 0. Not cached.
 */
export function refusalAtApply(
  entry: JournalEntry,
  operation: Operation.Command | Operation.Logout,
  refusal: ApplyRefusal,
  watermark: number,
): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation,
      status: refusal === 'epoch-ahead' ? Status.EpochAhead : Status.RequestGap,
      client: entry.client,
      session: entry.session,
      request: entry.request,
      resumeToken: entry.requestChecksum,
      commit: entry.op,
      watermark,
    },
    refusal === 'epoch-ahead'
      ? errorBody('EPOCH_AHEAD', EPOCH_AHEAD_MESSAGE)
      : errorBody('REQUEST_GAP', requestGapMessage(watermark + 1)),
  );
}

// ------------------------------------------------- answers without journaling

/**
 * Frames that answer a request without journaling it echo its header
 * (`client`, `session`, `request`, its `checksum_body` as `request_checksum`);
 * `op` and `timestamp` are 0 and `commit` is the node's commit op when the
 * frame is built (0 before the journal is open).
 */

/** A REPLY with a non-OK status, echoing the request; the body names the status and says why. */
export function answerFrame(
  request: Frame,
  status: Status,
  message: string,
  commit: number,
  watermark = 0,
): Buffer {
  return encodeReplyTo(
    request,
    { command: Command.Reply, status, commit, watermark },
    errorBody(STATUS_NAMES[status], message),
  );
}

/**
 * A follower's answer to a write (or a QUERY, which must see the leader's
 * state): NOT_READY, retry elsewhere. PROTOCOL.md's error body gains the
 * additive key `error.leader`, the `host:port` the leader advertises, when
 * the follower knows it; a client that reads it goes there next, one that
 * does not just tries its next node.
 */
export function notLeaderAnswer(request: Frame, leader: string | null, commit: number): Buffer {
  const message =
    leader === null
      ? 'this node has no leader; retry later'
      : `this node is a follower; the leader is at ${leader}`;
  const base = errorBodyText(STATUS_NAMES[Status.NotReady], message);
  const body = leader === null ? base : `${base.slice(0, -2)},"leader":${JSON.stringify(leader)}}}`;
  return encodeReplyTo(
    request,
    { command: Command.Reply, status: Status.NotReady, commit, watermark: 0 },
    body,
  );
}

/** An EVICTION no request asked for: the session a connection held ended or moved. */
export function unaskedEviction(
  client: ClientId,
  epoch: number,
  reason: EvictionReason,
  commit: number,
  watermark: number,
): Buffer {
  return encodeFrame({
    command: Command.Eviction,
    operation: 0,
    status: reason,
    client,
    session: epoch,
    commit,
    watermark,
  });
}

/** What this node is in its cluster, as PING reports it. */
export interface PingClusterView {
  /** This node's id (`ONCE_NODE_ID`); null for a single node. */
  readonly node: string | null;
  /**
   * `leader`: this node holds the cluster's lease and appends to the journal;
   * `follower`: another node does; `none`: no holder is known (a single
   * node, or a cluster between leaders).
   */
  readonly role: 'leader' | 'follower' | 'none';
  /** The leader's advertised `host:port` (this node's own when it leads); null when unknown. */
  readonly leader: string | null;
}

/** A node outside any cluster: no id, no role, no leader. */
export const SINGLE_NODE_PING: PingClusterView = Object.freeze({
  node: null,
  role: 'none',
  leader: null,
});

/**
 * The PING reply: version, commit op, and whether the node serves, then
 * what the node is in its cluster (`node`, `role`, `leader`). The three keys
 * of PROTOCOL.md come first, in its order and with the same bytes as before
 * the cluster keys were added, so a reader of the old body finds what it
 * knew where it knew it and can ignore the rest.
 */
export function pingReply(
  request: Frame,
  commit: number,
  ready: boolean,
  cluster: PingClusterView = SINGLE_NODE_PING,
  stoppedApplying?: Error,
): Buffer {
  const body = JSON.stringify({
    version: 1,
    commit,
    ready,
    node: cluster.node,
    role: cluster.role,
    leader: cluster.leader,
    ...(stoppedApplying ? { stoppedApplying: stoppedApplyingView(stoppedApplying) } : {}),
  });
  return encodeReplyTo(request, { command: Command.Reply, status: Status.Ok, commit }, body);
}

/**
 * Why a node stopped applying the journal, as PING and health show it: the
 * error's stable `code` and the `op` it stopped at, not its message (which
 * may quote a reply; the node's log has it).
 */
export function stoppedApplyingView(error: Error): { code: string | null; op: number | null } {
  const { code, op } = error as { code?: unknown; op?: unknown };
  return {
    code: typeof code === 'string' ? code : null,
    op: typeof op === 'number' ? op : null,
  };
}

/** A framing failure's reply (BAD_FRAME, VERSION_UNSUPPORTED); the connection closes after it. */
export function badFrameReply(status: Status, message: string, commit: number): Buffer {
  return encodeFrame(
    { command: Command.Reply, operation: 0, status, commit },
    errorBody(STATUS_NAMES[status], message),
  );
}

/** The EVICTION that refuses a request whose session is gone or fenced, echoing it. */
export function evictionAnswer(
  request: Frame,
  reason: EvictionReason,
  commit: number,
  watermark: number,
): Buffer {
  return encodeReplyTo(request, { command: Command.Eviction, status: reason, commit, watermark });
}

/** In flight when the journal failed: NOT_READY for (client, epoch, request), so its client retries it. */
export function inFlightNotReady(
  inFlight: {
    client: ClientId;
    epoch: number;
    request: number;
    operation: number;
    checksum: Buffer;
  },
  message: string,
  commit: number,
): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation: inFlight.operation,
      status: Status.NotReady,
      client: inFlight.client,
      session: inFlight.epoch,
      request: inFlight.request,
      resumeToken: inFlight.checksum,
      commit,
    },
    errorBody('NOT_READY', message),
  );
}
