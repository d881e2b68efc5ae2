/**
 * A handler's refusal: thrown from a command (or an admission step) to answer
 * `{"ok": false, "error": {code, message}}`.
 *
 * A refused command is still committed: the refusal is cached like any other
 * reply, so a retry under the same request number gets the same refusal.
 * Throw it before mutating state; apply does not roll back.
 */
export class CommandError extends Error {
  constructor(
    /** Stable, machine-readable, SCREAMING_SNAKE_CASE (e.g. `ACCOUNT_NOT_FOUND`). */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

/** Refusal codes the engine itself produces. */
export const EngineRefusal = {
  /** No command handler is registered for the pattern. */
  UnknownPattern: 'UNKNOWN_PATTERN',
  /** The handler threw something that is not a {@link CommandError}. */
  HandlerFailed: 'HANDLER_FAILED',
  /** The handler returned a promise; apply must be synchronous to be replayable. */
  AsyncHandler: 'ASYNC_HANDLER',
  /** The journaled body could not be read back as a command. */
  InvalidEntry: 'INVALID_ENTRY',
} as const;
