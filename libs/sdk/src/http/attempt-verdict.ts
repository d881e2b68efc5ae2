/**
 * What an HTTP status means for the operation in progress.
 *
 * - `final`: the answer to return. Success, a replay, and every refusal the
 *   server made on purpose (400, 422, 500, ...): sending the same request
 *   again would get the same answer (an idempotent server records it).
 * - `retry`: nothing was decided yet, or the server could not be reached
 *   through the proxy: 409 (the same key is being applied now), 429 (slow
 *   down), 502, 503 (e.g. a follower: `NOT_LEADER`, nothing journaled), 504.
 *   Retrying with the same key is safe: at most one attempt is applied.
 */
export type AttemptVerdict = 'final' | 'retry';

const RETRIED_STATUSES: ReadonlySet<number> = new Set([409, 429, 502, 503, 504]);

/** The verdict on an attempt answered with `status`. */
export function attemptVerdict(status: number): AttemptVerdict {
  return RETRIED_STATUSES.has(status) ? 'retry' : 'final';
}
