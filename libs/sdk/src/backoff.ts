import { sdkAssert } from './errors/sdk-assert';

/** Reconnect delays: exponential growth with a cap, spread by jitter. */
export interface BackoffSettings {
  /** Delay before the first attempt, in ms. */
  readonly initialDelayMs: number;
  /** No delay exceeds this, jitter included, in ms. */
  readonly delayMsMax: number;
  /** Growth per attempt (≥ 1). */
  readonly factor: number;
  /** Relative spread in [0, 1]: a delay lies within ±jitter of its base. */
  readonly jitter: number;
}

/**
 * Exponential backoff with jitter.
 *
 * Why jitter: after a node restarts, every client it served reconnects at once;
 * spreading the delays keeps them from arriving in lockstep (and from all
 * meeting NOT_READY at the same moments).
 *
 * Attempt `n` (1-based) has the base `min(delayMsMax, initialDelayMs · factor^(n-1))`
 * and a delay uniformly drawn in `[base·(1-jitter), min(delayMsMax, base·(1+jitter))]`,
 * rounded to whole milliseconds. `random` is injectable so that tests can pin it.
 */
export class Backoff {
  constructor(
    private readonly settings: BackoffSettings,
    private readonly random: () => number = Math.random,
  ) {
    const { initialDelayMs, delayMsMax, factor, jitter } = settings;
    sdkAssert(Number.isFinite(initialDelayMs) && initialDelayMs >= 0, 'initialDelayMs ≥ 0');
    sdkAssert(Number.isFinite(delayMsMax) && delayMsMax >= initialDelayMs, 'delayMsMax ≥ initial');
    sdkAssert(Number.isFinite(factor) && factor >= 1, 'factor ≥ 1');
    sdkAssert(jitter >= 0 && jitter <= 1, 'jitter in [0, 1]');
  }

  /** The base delay of attempt `attempt` (1-based), before jitter. */
  base(attempt: number): number {
    sdkAssert(Number.isInteger(attempt) && attempt >= 1, `attempt ${attempt} is not ≥ 1`);
    const { initialDelayMs, delayMsMax, factor } = this.settings;
    // factor^(n-1) overflows to Infinity for large n; min() keeps the cap.
    return Math.min(delayMsMax, initialDelayMs * factor ** (attempt - 1));
  }

  /** The delay before attempt `attempt` (1-based), jitter included. */
  delay(attempt: number): number {
    const base = this.base(attempt);
    const { delayMsMax, jitter } = this.settings;
    const r = this.random();
    sdkAssert(r >= 0 && r < 1, `random() returned ${r}, not in [0, 1)`);
    const low = base * (1 - jitter);
    const high = Math.min(delayMsMax, base * (1 + jitter));
    return Math.round(low + (high - low) * r);
  }
}
