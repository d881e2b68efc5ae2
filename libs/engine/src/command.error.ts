/** What a {@link CommandError} may carry besides its code and message. */
export interface CommandErrorOptions {
  /**
   * The error value a NestJS RPC client would receive for this refusal (what
   * an `RpcException` carried), sent as the body's additive `rpcError` field
   * (PROTOCOL-NOTES). Must be JSON; it is part of the committed reply, so it
   * must be the same on every replay. Default: none.
   */
  readonly rpcError?: unknown;
  /** The error this one stands for; kept for the server log, never sent. */
  readonly cause?: unknown;
}

/**
 * A handler's refusal: thrown from a command (or an admission step) to answer
 * `{"ok": false, "error": {code, message}}`.
 *
 * A refused command is still committed: the refusal is cached like any other
 * reply, so a retry under the same request number gets the same refusal.
 * Throw it before mutating state; apply does not roll back.
 */
export class CommandError extends Error {
  /** See {@link CommandErrorOptions.rpcError}. */
  readonly rpcError: unknown;

  constructor(
    /** Stable, machine-readable, SCREAMING_SNAKE_CASE (e.g. `ACCOUNT_NOT_FOUND`). */
    readonly code: string,
    message: string,
    options: CommandErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CommandError';
    this.rpcError = options.rpcError;
  }
}

/** Refusal codes the engine itself produces. */
export const EngineRefusal = {
  /** No command handler is registered for the pattern. */
  UnknownPattern: 'UNKNOWN_PATTERN',
  /**
   * The command's pattern was retired by the code (OnceModule's `retired`):
   * its entry changes nothing; what it first answered is not rebuilt.
   */
  CommandRetired: 'COMMAND_RETIRED',
  /** The handler threw something that is not a {@link CommandError}. */
  HandlerFailed: 'HANDLER_FAILED',
  /** The handler returned a promise; apply must be synchronous to be replayable. */
  AsyncHandler: 'ASYNC_HANDLER',
  /** The journaled body could not be read back as a command. */
  InvalidEntry: 'INVALID_ENTRY',
  /** The admission step (`admit`) threw something that is not a {@link CommandError}. */
  AdmissionFailed: 'ADMISSION_FAILED',
} as const;

/**
 * The message of a HANDLER_FAILED refusal. It names the op and nothing of
 * the error (whose message may hold anything, a password included): the
 * refusal is committed and replayed, so it must be the same bytes on every
 * replay, and the op is what finds the error in the server log.
 */
export function handlerFailedMessage(op: number): string {
  return `the handler failed at op ${op}; the server log has the details`;
}
