import { CommandRefusedError } from '@once/sdk';

/**
 * The error a `send()` or `emit()` observable fails with, for an error of the
 * SDK. A refusal that carries an RpcException's error object (the node's
 * additive `error.rpcError`) fails with exactly that object, as NestJS's TCP
 * client does: `getError()` when it is an object, `{ status: 'error', message }`
 * when it is a string. Every other error is the SDK's own (CommandRefusedError
 * with its `code`, OutcomeUnknownError, ...), unchanged.
 */
export function nestErrorOf(error: unknown): unknown {
  if (!(error instanceof CommandRefusedError) || error.rpcError === undefined) return error;
  const rpcError = error.rpcError;
  return typeof rpcError === 'object' && rpcError !== null
    ? rpcError
    : { status: 'error', message: rpcError };
}
