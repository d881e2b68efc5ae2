/**
 * Counts failed REGISTERs per key (a peer address, or a username's digest)
 * over a sliding minute. It decides nothing by itself: `RegisterThrottle`
 * turns the count past `limitPerMinute` into a delay.
 *
 * Memory is bounded: keys whose window is empty are forgotten, at most
 * `maxKeys` are tracked (the least recently failed are dropped first), and
 * a key keeps at most `limitPerMinute + EXCESS_KEPT` times (a larger excess
 * would not lengthen the delay).
 */
export class RegisterRateLimiter {
  private readonly failures = new Map<string, number[]>();
  private static readonly WINDOW_MS = 60_000;
  /** Failures past the limit that are counted; the delay is at its cap long before. */
  private static readonly EXCESS_KEPT = 32;

  constructor(
    private readonly limitPerMinute: number,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when `key` used up its free failures for the current minute. */
  blocked(key: string): boolean {
    return this.excess(key) >= 0;
  }

  /** Failures of `key` in the last minute beyond its free ones (negative: some are left). */
  excess(key: string): number {
    return this.recent(key).length - this.limitPerMinute;
  }

  recordFailure(key: string): void {
    const times = this.recent(key);
    times.push(this.now());
    if (times.length > this.limitPerMinute + RegisterRateLimiter.EXCESS_KEPT) times.shift();
    this.failures.delete(key);
    this.failures.set(key, times);
    if (this.failures.size > this.maxKeys) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  private recent(key: string): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const cutoff = this.now() - RegisterRateLimiter.WINDOW_MS;
    while (times.length > 0 && times[0] <= cutoff) times.shift();
    if (times.length === 0) this.failures.delete(key);
    return times;
  }
}
