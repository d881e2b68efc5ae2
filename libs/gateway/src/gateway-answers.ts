import {
  EpochAheadException,
  type GatewayException,
  InvalidRequestException,
  SessionEvictedException,
} from '@once/framework';
import { type PingClusterView, SINGLE_NODE_PING } from '@once/engine/internal';
import {
  type ClientId,
  Command,
  type EvictionReason,
  type Frame,
  STATUS_NAMES,
  Status,
} from '@once/protocol';
import { encodeFrame, encodeReplyTo, errorBody, errorBodyText } from '@once/protocol/internal';

/**
 * The gateway's own answers: the messages it answers with, the frames it
 * sends before anything is journaled (refusals echoing the request, PING,
 * redirects to the leader, EVICTIONs nobody asked for, framing failures),
 * and the mapping of a session refusal to its frame. The frames that answer
 * a journal entry when it applies are the engine's (its reply-frames module):
 * a replay rebuilds those, never these.
 *
 * Frames that answer a request without journaling it echo its header
 * (`client`, `session`, `request`, its `checksum_body` as `request_checksum`);
 * `op` and `timestamp` are 0 and `commit` is the node's commit op when the
 * frame is built (0 before the journal is open).
 */

/** Messages the gateway sends; kept here so each is written once. */
export const NOT_READY_MESSAGE = 'the node is not ready';
export const JOURNAL_FAILED_MESSAGE =
  'the node stopped: its journal cannot write; retry after it restarts';
export const INTERNAL_ERROR_MESSAGE = 'the node could not process this request; retry it';

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

/** The frame PROTOCOL.md names for a session refusal (EVICTION, EPOCH_AHEAD, INVALID_REQUEST, NOT_BOUND). */
export function sessionRefusalFrame(
  request: Frame,
  refusal: GatewayException,
  commit: number,
): Buffer {
  if (refusal instanceof SessionEvictedException) {
    return evictionAnswer(request, refusal.reason, commit, refusal.watermark);
  }
  if (refusal instanceof EpochAheadException) {
    return answerFrame(request, Status.EpochAhead, refusal.message, commit, refusal.watermark);
  }
  if (refusal instanceof InvalidRequestException) {
    return answerFrame(request, Status.InvalidRequest, refusal.detail, commit);
  }
  return answerFrame(request, Status.NotBound, refusal.message, commit);
}
