import { type Frame, parseReplyBody, Status } from '@once/protocol';
import { AlreadyAppliedError } from './errors/already-applied.error';
import { CommandRefusedError } from './errors/command-refused.error';
import { replyMessage, rpcErrorOf, statusError } from './errors/error-mapping';
import { InvalidReplyError } from './errors/invalid-reply.error';

/** What a caller's promise is settled with: a result, or an error. */
export type ReplyOutcome =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: Error };

/**
 * The outcome of an OK reply's body (`{"ok":true,"result"}` or
 * `{"ok":false,"error"}`): the handler's result, its refusal as a
 * CommandRefusedError (with the RpcException's payload, when there was one),
 * or an InvalidReplyError saying `invalidMessage` for a body that is neither.
 */
export function bodyOutcome(frame: Frame, pattern: string, invalidMessage: string): ReplyOutcome {
  const outcome = parseReplyBody(frame.body);
  if (!outcome) return { ok: false, error: new InvalidReplyError(invalidMessage) };
  if (outcome.ok) return { ok: true, result: outcome.result };
  const { code, message } = outcome.error;
  return {
    ok: false,
    error: new CommandRefusedError(code, message, pattern, rpcErrorOf(frame.body)),
  };
}

/**
 * The outcome of a COMMAND reply that settles its request (any status but
 * NOT_BOUND and NOT_READY, which the session driver handles): OK gives the
 * body's outcome; ALREADY_APPLIED an AlreadyAppliedError (applied, result no
 * longer cached); REQUEST_CONFLICT, REQUEST_GAP, EPOCH_AHEAD and
 * INVALID_REQUEST the error of that status (client bugs, never retried).
 */
export function commandOutcome(frame: Frame, pattern: string): ReplyOutcome {
  const { header } = frame;
  if (header.status === (Status.Ok as number)) {
    return bodyOutcome(
      frame,
      pattern,
      `request ${header.request}: the reply body is not an outcome`,
    );
  }
  const message = replyMessage(frame.body, `request ${header.request} refused`);
  if (header.status === (Status.AlreadyApplied as number)) {
    return { ok: false, error: new AlreadyAppliedError(header.request, message) };
  }
  return { ok: false, error: statusError(header.status, message, header.request) };
}

/** The outcome of a QUERY reply other than NOT_BOUND and NOT_READY. */
export function queryOutcome(frame: Frame, pattern: string): ReplyOutcome {
  if (frame.header.status === (Status.Ok as number)) {
    return bodyOutcome(frame, pattern, 'the query reply body is not an outcome');
  }
  return {
    ok: false,
    error: statusError(frame.header.status, replyMessage(frame.body, 'query refused')),
  };
}
