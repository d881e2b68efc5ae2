/**
 * Counts failed REGISTERs per peer address over a sliding minute, so a
 * password guesser is slowed to `limitPerMinute` tries per address, and the
 * node does not spend a scrypt per guess beyond that.
 *
 * Memory is bounded: addresses whose window is empty are forgotten, and at
 * most `maxAddresses` are tracked (the oldest are dropped first).
 */
export class RegisterRateLimiter {
  private readonly failures = new Map<string, number[]>();
  private static readonly WINDOW_MS = 60_000;

  constructor(
    private readonly limitPerMinute: number,
    private readonly maxAddresses = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when `address` used up its failures for the current minute. */
  blocked(address: string): boolean {
    return this.recent(address).length >= this.limitPerMinute;
  }

  recordFailure(address: string): void {
    const times = this.recent(address);
    times.push(this.now());
    this.failures.delete(address);
    this.failures.set(address, times);
    if (this.failures.size > this.maxAddresses) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
  }

  private recent(address: string): number[] {
    const times = this.failures.get(address);
    if (!times) return [];
    const cutoff = this.now() - RegisterRateLimiter.WINDOW_MS;
    while (times.length > 0 && times[0] <= cutoff) times.shift();
    if (times.length === 0) this.failures.delete(address);
    return times;
  }
}
