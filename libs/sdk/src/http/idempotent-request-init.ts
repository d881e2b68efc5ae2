/**
 * One logical operation sent to an idempotent HTTP endpoint. Every attempt
 * sends the same method, headers, body and `Idempotency-Key`.
 */
export interface IdempotentRequestInit {
  /** The HTTP method. Default `'POST'`. */
  readonly method?: string;
  /**
   * Request headers. `Idempotency-Key` is not one of them: pass it as `key`.
   * Default: none (`content-type: application/json` is added for a JSON body).
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The body: a string or bytes are sent as given; any other value is sent as
   * its JSON text, with `content-type: application/json` unless `headers`
   * names one. Default: no body.
   */
  readonly body?: unknown;
  /**
   * The idempotency key, when the operation already has one: a retry of an
   * operation whose earlier call ended in `HttpOutcomeUnknownError` must pass
   * that error's `key`, or the server may apply the operation twice. Printable
   * ASCII. Default: a new `crypto.randomUUID()`.
   */
  readonly key?: string;
  /**
   * Aborts the whole operation (the attempt in progress and the waits between
   * attempts); the call then rejects with the signal's reason, as `fetch`
   * does. Default: none.
   */
  readonly signal?: AbortSignal;
}
