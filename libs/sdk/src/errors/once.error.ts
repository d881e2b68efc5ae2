/**
 * Base of every error the SDK rejects with.
 *
 * `code` is stable and machine-readable (the protocol's name of a status or an
 * eviction reason, a handler's refusal code, or one of the SDK's own codes):
 * callers branch on it, never on `message`, whose wording may change.
 */
export class OnceError extends Error {
  override readonly name: string = 'OnceError';

  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
