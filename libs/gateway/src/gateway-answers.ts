import {
  EpochAheadException,
  type GatewayException,
  InvalidRequestException,
  SessionEvictedException,
} from '@once/framework';
import {
  type ClientId,
  Command,
  type EvictionReason,
  type Frame,
  STATUS_NAMES,
  Status,
  encodeFrame,
  encodeReplyTo,
  errorBody,
} from '@once/protocol';

/**
 * The frames the gateway answers with by itself, without journaling: refusals
 * that echo the request, session refusals, EVICTIONs nobody asked for. Every
 * `commit` is the node's commit op when the frame is built (0 before the
 * journal is open). Replies of journaled entries are the engine's.
 */

/** Messages the gateway sends; kept here so each is written once. */
export const NOT_READY_MESSAGE = 'the node is not ready';
export const JOURNAL_FAILED_MESSAGE =
  'the node stopped: its journal cannot write; retry after it restarts';
export const INTERNAL_ERROR_MESSAGE = 'the node could not process this request; retry it';

/** A REPLY with a non-OK status (or OK for PING), echoing the request. */
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

/** The frame PROTOCOL.md names for a session refusal (EVICTION, EPOCH_AHEAD, INVALID_REQUEST, NOT_BOUND). */
export function sessionRefusalFrame(
  request: Frame,
  refusal: GatewayException,
  commit: number,
): Buffer {
  if (refusal instanceof SessionEvictedException) {
    return encodeReplyTo(request, {
      command: Command.Eviction,
      status: refusal.reason,
      commit,
      watermark: refusal.watermark,
    });
  }
  if (refusal instanceof EpochAheadException) {
    return answerFrame(request, Status.EpochAhead, refusal.message, commit, refusal.watermark);
  }
  if (refusal instanceof InvalidRequestException) {
    return answerFrame(request, Status.InvalidRequest, refusal.detail, commit);
  }
  return answerFrame(request, Status.NotBound, refusal.message, commit);
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

/** The PING reply: version, commit op, and whether the node serves. */
export function pingReply(request: Frame, commit: number, ready: boolean): Buffer {
  const body = JSON.stringify({ version: 1, commit, ready });
  return encodeReplyTo(request, { command: Command.Reply, status: Status.Ok, commit }, body);
}

/** A framing failure's reply (BAD_FRAME, VERSION_UNSUPPORTED); the connection closes after it. */
export function badFrameReply(status: Status, message: string, commit: number): Buffer {
  return encodeFrame(
    { command: Command.Reply, operation: 0, status, commit },
    errorBody(STATUS_NAMES[status], message),
  );
}
