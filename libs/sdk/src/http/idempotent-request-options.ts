/**
 * Where a node's advertised address (the `Once-Leader` header of a 503) is
 * served over HTTP: a map from address to base URL, or a function that
 * answers the base URL (`undefined`: unknown, the redirect is not followed).
 *
 * Why the caller says it: the address a node advertises to its peers
 * (`host:port` of its cluster listener) is not the URL a client reaches it at
 * (scheme, HTTP port, a proxy in front), and following an address the caller
 * did not vouch for would send its request, and its credentials, anywhere.
 */
export type LeaderUrlResolver =
  Readonly<Record<string, string>> | ((address: string) => string | undefined);

/**
 * How an idempotent HTTP request is retried. Every option is optional; the
 * defaults are in {@link DEFAULT_IDEMPOTENT_REQUEST_OPTIONS}.
 *
 * A retry carries the same `Idempotency-Key`, so the server applies the
 * operation at most once whatever the number of attempts.
 */
export interface IdempotentRequestOptions {
  /** Attempts in all, the first one included (≥ 1). Default `5`. */
  readonly attemptsMax?: number;
  /**
   * Base delay before the second attempt, in ms; it doubles at every further
   * attempt, spread by ±50 % jitter so that callers refused together do not
   * come back together. Default `100`.
   */
  readonly delayMs?: number;
  /**
   * No delay between attempts exceeds this, in ms: neither the backoff nor a
   * `Retry-After` the server asked for (a longer `Retry-After` is shortened to
   * it). At least `delayMs`. Default `5000`.
   */
  readonly delayMsMax?: number;
  /**
   * How long one attempt may take, in ms, the response body included; an
   * attempt that runs out is aborted and counts as a network failure (retried
   * with the same key). Default `10000`.
   */
  readonly timeoutMs?: number;
  /**
   * Where the leader named by a 503's `Once-Leader` header is reached. When it
   * resolves the address, the next attempt goes to that base URL (same path
   * and query) without waiting; otherwise the 503 is retried where it came
   * from, after its `Retry-After`. Default: none, never redirected.
   */
  readonly leaderUrl?: LeaderUrlResolver;
}

/** The defaults of {@link IdempotentRequestOptions}. */
export const DEFAULT_IDEMPOTENT_REQUEST_OPTIONS = {
  attemptsMax: 5,
  delayMs: 100,
  delayMsMax: 5000,
  timeoutMs: 10_000,
} as const satisfies Required<Omit<IdempotentRequestOptions, 'leaderUrl'>>;
