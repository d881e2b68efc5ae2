/**
 * The final answer to an idempotent HTTP request: any answer the helper does
 * not retry, a success or a refusal (400, 422, 500, ...) alike.
 */
export interface IdempotentResponse {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: Headers;
  /** The response body as UTF-8 text (`''` when empty). */
  readonly body: string;
  /**
   * `true` when the server answered a key it had already applied with the
   * first response again (`Idempotent-Replayed: true`, or the structured
   * boolean `?1`): an earlier attempt, or an earlier call with the same key,
   * was applied. `false` otherwise, also when the server sent no such header.
   */
  readonly replayed: boolean;
  /** How many attempts were made, this one included (≥ 1). */
  readonly attempts: number;
  /** The idempotency key every attempt carried. */
  readonly key: string;
  /** The URL that answered (another base URL after a leader redirect). */
  readonly url: string;
}
