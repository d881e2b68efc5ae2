import { OnceError } from './once.error';

/**
 * Every attempt of an idempotent HTTP request ended without a final answer
 * (network failures, attempt timeouts, 409, 429, 502, 503, 504), so whether
 * the server applied the operation cannot be told: an attempt whose
 * connection dropped may have been applied.
 *
 * The key is what settles it: send the operation again, later, with the same
 * `key`; the server then applies it if no attempt was, or answers the first
 * response again (`replayed: true`). A new key could apply it twice.
 */
export class HttpOutcomeUnknownError extends OnceError {
  override readonly name = 'HttpOutcomeUnknownError';
  declare readonly code: 'HTTP_OUTCOME_UNKNOWN';

  constructor(
    /** The idempotency key every attempt carried: retry with it. */
    readonly key: string,
    /** The attempts made. */
    readonly attempts: number,
    /** The status of the last attempt, `undefined` when it got no answer. */
    readonly status: number | undefined,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(
      'HTTP_OUTCOME_UNKNOWN',
      `${url}: no final answer after ${attempts} attempt(s) with key "${key}" (last: ${
        status === undefined ? 'no answer' : `status ${status}`
      }); retry later with the same key`,
      options,
    );
  }
}
