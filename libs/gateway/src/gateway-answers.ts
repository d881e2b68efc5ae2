import {
  EpochAheadException,
  type GatewayException,
  InvalidRequestException,
  SessionEvictedException,
} from '@once/framework';
import { answerFrame, evictionAnswer } from '@once/engine/internal';
import { type Frame, Status } from '@once/protocol';

/**
 * The gateway's own words: the messages it answers with, and the mapping of
 * a session refusal to its frame. The frames themselves are built by the
 * engine's reply-frames module, with every other frame a node sends.
 */

/** Messages the gateway sends; kept here so each is written once. */
export const NOT_READY_MESSAGE = 'the node is not ready';
export const JOURNAL_FAILED_MESSAGE =
  'the node stopped: its journal cannot write; retry after it restarts';
export const INTERNAL_ERROR_MESSAGE = 'the node could not process this request; retry it';

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
