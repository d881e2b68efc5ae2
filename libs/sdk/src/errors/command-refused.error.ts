import { OnceError } from './once.error';

/**
 * The handler refused the request: the reply body was
 * `{"ok":false,"error":{"code","message"}}`. `code` is the handler's own code
 * (ACCOUNT_NOT_FOUND, INSUFFICIENT_FUNDS, UNKNOWN_PATTERN, ...), not a protocol
 * status.
 *
 * For a command the refusal is committed: the request number stays used, and a
 * retry of the same request gets the same refusal. Queries use the same class
 * for their handler's refusals.
 */
export class CommandRefusedError extends OnceError {
  override readonly name = 'CommandRefusedError';

  constructor(
    code: string,
    message: string,
    readonly pattern: string,
    /**
     * The error object of an `RpcException` the handler threw, when the node
     * sent one (the additive `error.rpcError` of the reply body): what a
     * NestJS TCP client would have received. `undefined` when absent.
     */
    readonly rpcError?: unknown,
  ) {
    super(code, message);
  }
}
