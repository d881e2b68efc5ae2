import { OnceError } from './once.error';

/**
 * The caller's promise gave up after `requestTimeoutMs`.
 *
 * When `request` is a number, the command was sent: it keeps its number and
 * stays in the pipeline until the node answers it (a request number must never
 * leave a gap), so it may still be applied; its outcome is unknown to this
 * caller. When `request` is undefined, the command was still queued and was
 * withdrawn: it was never sent and will never be applied.
 */
export class RequestTimeoutError extends OnceError {
  override readonly name = 'RequestTimeoutError';
  declare readonly code: 'REQUEST_TIMEOUT';

  constructor(
    readonly pattern: string,
    readonly timeoutMs: number,
    readonly request: number | undefined,
  ) {
    super(
      'REQUEST_TIMEOUT',
      request === undefined
        ? `${pattern}: no answer within ${timeoutMs} ms; it was never sent and is withdrawn`
        : `request ${request} (${pattern}): no answer within ${timeoutMs} ms; it may still be applied`,
    );
  }
}
