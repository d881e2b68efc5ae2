/**
 * An HTTP request with an `Idempotency-Key`, as the framework hands it to
 * `Engine.submitHttp` once its guards, pipes and interceptors admitted it:
 * everything the apply step needs, and the key's identity. Journaled as one
 * HTTP_REQUEST entry (see {@link encodeHttpRequestBody}).
 */
export interface HttpRequestDraft {
  /** Principal and route, e.g. `"user 7|POST /ledger/deposit"`: a key is unique within its scope. */
  readonly scope: string;
  /** The `Idempotency-Key` header's value. */
  readonly key: string;
  /** Exactly 16 bytes: what tells a retry (same bytes) from another request under the same key. */
  readonly fingerprint: Buffer;
  /** The principal's user id (0 if none); the apply context's `userId`. */
  readonly userId: number;
  /** The apply step's command pattern (registered in the CommandRegistry). */
  readonly pattern: string;
  /** JSON-able; what the apply step receives. */
  readonly data: unknown;
  /** The success status (e.g. 201). */
  readonly status: number;
  /** The status of a `CommandError` refusal from the apply step (e.g. 422). */
  readonly refusalStatus: number;
}

/** The response an HTTP_REQUEST entry got when it applied: what every retry of its key is answered. */
export interface HttpResponseRecord {
  /** What was answered the first time. */
  readonly status: number;
  /** The exact response body bytes (JSON text, or empty). */
  readonly body: Buffer;
  /** The op of the entry that applied the request. */
  readonly op: number;
}

/**
 * What `Engine.submitHttp` resolves with:
 * - `applied`: journaled and applied just now (the first time);
 * - `replayed`: the key was done already: its first response again;
 * - `mismatch`: the key is known (done or in flight) with another fingerprint (422);
 * - `in-flight`: the same request is being applied now (409);
 * - `refused`: the route's admission step (`@Admit`) refused it; nothing was
 *   journaled or recorded (`response.op` is 0), and a retry runs the step again.
 */
export type HttpSubmitResult =
  | { readonly kind: 'applied'; readonly response: HttpResponseRecord }
  | { readonly kind: 'replayed'; readonly response: HttpResponseRecord }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'in-flight' }
  | { readonly kind: 'refused'; readonly response: HttpResponseRecord };

/** Options of `Engine.submitHttp`. */
export interface HttpSubmitOptions {
  /**
   * When the same request (same key, same fingerprint) is being applied:
   * wait for it and resolve with its response as `replayed`, instead of
   * `in-flight` at once. Default false.
   */
  readonly waitInFlight?: boolean;
}

/**
 * What applying an HTTP_REQUEST entry produced, on its `ApplyOutcome`:
 * - `applied`: the handler ran; `response` is now recorded under the key;
 * - `duplicate`: the key was already recorded with the same fingerprint (a
 *   race admission could not see, e.g. under a new leader): nothing changed,
 *   `response` is the recorded one;
 * - `mismatch`: the key was recorded with another fingerprint: nothing
 *   changed, `response` is a 422 IDEMPOTENCY_KEY_REUSED, recorded nowhere.
 */
export interface HttpApplied {
  readonly kind: 'applied' | 'duplicate' | 'mismatch';
  readonly response: HttpResponseRecord;
  /** True unless `kind` is `applied`: the entry changed nothing. */
  readonly duplicate: boolean;
}
