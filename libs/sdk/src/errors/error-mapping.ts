import { EvictionReason, Status } from '@once/protocol';
import { AlreadyAppliedError } from './already-applied.error';
import { BadFrameError } from './bad-frame.error';
import { ClientOwnedByOtherUserError } from './client-owned-by-other-user.error';
import { EpochAheadError } from './epoch-ahead.error';
import { EvictedError } from './evicted.error';
import { ExpiredError } from './expired.error';
import { InvalidReplyError } from './invalid-reply.error';
import { InvalidRequestError } from './invalid-request.error';
import { LoggedOutError } from './logged-out.error';
import { NoSessionError } from './no-session.error';
import { NotBoundError } from './not-bound.error';
import { NotReadyError } from './not-ready.error';
import { type ProtocolStatusError } from './protocol-status.error';
import { RequestConflictError } from './request-conflict.error';
import { RequestGapError } from './request-gap.error';
import { type SessionEvictedError } from './session-evicted.error';
import { SessionTooLowError } from './session-too-low.error';
import { SupersededError } from './superseded.error';
import { UnauthenticatedError } from './unauthenticated.error';
import { VersionUnsupportedError } from './version-unsupported.error';

/**
 * The error for a REPLY with a non-OK `status`. `request` is the header's
 * request number (ALREADY_APPLIED carries it). A status the protocol does not
 * define (OK included: it is not an error) is an {@link InvalidReplyError}.
 */
export function statusError(
  status: number,
  message: string,
  request = 0,
): ProtocolStatusError | InvalidReplyError {
  switch (status as Status) {
    case Status.BadFrame:
      return new BadFrameError(message);
    case Status.VersionUnsupported:
      return new VersionUnsupportedError(message);
    case Status.InvalidRequest:
      return new InvalidRequestError(message);
    case Status.Unauthenticated:
      return new UnauthenticatedError(message);
    case Status.NotBound:
      return new NotBoundError(message);
    case Status.ClientOwnedByOtherUser:
      return new ClientOwnedByOtherUserError(message);
    case Status.EpochAhead:
      return new EpochAheadError(message);
    case Status.RequestGap:
      return new RequestGapError(message);
    case Status.RequestConflict:
      return new RequestConflictError(message);
    case Status.AlreadyApplied:
      return new AlreadyAppliedError(request, message);
    case Status.NotReady:
      return new NotReadyError(message);
    default:
      return new InvalidReplyError(`the node answered with status ${status}, not an error status`);
  }
}

/** The error for an EVICTION frame's `status` (its reason). */
export function evictionError(
  reason: number,
  message = 'the node ended this session',
): SessionEvictedError | InvalidReplyError {
  switch (reason as EvictionReason) {
    case EvictionReason.NoSession:
      return new NoSessionError(message);
    case EvictionReason.SessionTooLow:
      return new SessionTooLowError(message);
    case EvictionReason.Evicted:
      return new EvictedError(message);
    case EvictionReason.Superseded:
      return new SupersededError(message);
    case EvictionReason.LoggedOut:
      return new LoggedOutError(message);
    case EvictionReason.Expired:
      return new ExpiredError(message);
    default:
      return new InvalidReplyError(`the node sent an EVICTION with unknown reason ${reason}`);
  }
}

/** The protocol's `message` of an error reply body `{"ok":false,"error":{…}}`, if it has one. */
export function replyMessage(body: Uint8Array, fallback: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as {
      error?: { message?: unknown };
    };
    const message = parsed?.error?.message;
    return typeof message === 'string' && message.length > 0 ? message : fallback;
  } catch {
    return fallback;
  }
}

/**
 * The `error.rpcError` of a refusal body `{"ok":false,"error":{…,"rpcError":…}}`:
 * the error object of an `RpcException` thrown by the handler, as NestJS's
 * own transports would hand it to the caller. `undefined` when the body has
 * none (older nodes, refusals that are not an RpcException's).
 */
export function rpcErrorOf(body: Uint8Array): unknown {
  try {
    const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as {
      error?: Record<string, unknown>;
    };
    const error = parsed?.error;
    return typeof error === 'object' && error !== null && Object.hasOwn(error, 'rpcError')
      ? error.rpcError
      : undefined;
  } catch {
    return undefined;
  }
}
