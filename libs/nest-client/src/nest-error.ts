import { CommandRefusedError } from '@once/sdk';
import { proxyConnectErrorOf } from './proxy-connect.error';

/**
 * The error a `send()` or `emit()` observable fails with, for an error of the
 * SDK. A refusal that carries the error value a NestJS TCP client would get
 * (the node's additive `error.rpcError`) fails with exactly that value, as
 * NestJS's TCP client does: an RpcException's object (the node already made
 * `RpcException('text')` into `{ status: 'error', message: 'text' }`, as
 * NestJS's own filter does), or whatever an exception filter answered, a
 * string as a string. A ConnectError becomes a ProxyConnectError (the
 * socket's `code`, as over TCP). Every other error is the SDK's own
 * (CommandRefusedError with its `code`, OutcomeUnknownError, ...), unchanged.
 *
 * Except an error the handler or a guard threw that NestJS did not know (a
 * plain `Error`): NestJS's answer to it, `{ status: 'error', message:
 * 'Internal server error' }`, says nothing a caller can act on, where once's
 * refusal names its code (QUERY_FAILED, FORBIDDEN, ...) and the error id the
 * server logged the error under. That refusal is what the caller gets, with
 * NestJS's answer as its `rpcError`.
 */
export function nestErrorOf(error: unknown): unknown {
  if (!(error instanceof CommandRefusedError)) return proxyConnectErrorOf(error);
  const rpcError = error.rpcError;
  if (rpcError === undefined || isUnknownErrorRefusal(error)) return error;
  return rpcError;
}

/** NestJS's answer to an exception it does not know. */
const NEST_UNKNOWN_ERROR = 'Internal server error';

/** The node's message for such an exception: it names the error id it logged the error under. */
const ERROR_ID_MESSAGE =
  /^the request failed \(error [0-9a-f]{12}\); the server log has the details$/;

/**
 * A refusal of an exception NestJS did not know: NestJS's answer as
 * `rpcError` and the node's error-id message (an `RpcException('Internal
 * server error')` a team throws itself keeps its own message, and so its
 * object reaches the caller as over TCP).
 */
function isUnknownErrorRefusal(error: CommandRefusedError): boolean {
  const rpcError = error.rpcError;
  if (typeof rpcError !== 'object' || rpcError === null) return false;
  const { status, message, ...rest } = rpcError as Record<string, unknown>;
  return (
    status === 'error' &&
    message === NEST_UNKNOWN_ERROR &&
    Object.keys(rest).length === 0 &&
    ERROR_ID_MESSAGE.test(error.message)
  );
}
