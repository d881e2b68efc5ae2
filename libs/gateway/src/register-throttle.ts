import { createHash } from 'node:crypto';
import { RegisterRateLimiter } from './register-rate-limiter';

/** The free failures, per minute, before failed REGISTERs are slowed. */
export interface RegisterThrottleLimits {
  /** Failures per peer address per minute answered at once. */
  readonly failedPerAddressPerMinute: number;
  /** Failures per username per minute before that username is checked one attempt at a time. */
  readonly failedPerUserPerMinute: number;
}

/** The delay of the first failure past a limit; each further one doubles it. */
export const REGISTER_FAILURE_DELAY_BASE_MS = 250;
/** The longest a failure's answer is held. */
export const REGISTER_FAILURE_DELAY_MAX_MS = 5_000;

/** What one REGISTER attempt came to: the authenticated user, none, or the node stopped. */
export type ThrottledCheck<T> =
  { readonly kind: 'checked'; readonly value: T | undefined } | { readonly kind: 'stopped' };

/**
 * Slows password guessing without locking anyone out:
 *
 * - Credentials are always checked. A REGISTER is never refused unchecked,
 *   so the right password is accepted from an address others guessed from
 *   (one client behind a NAT cannot lock out everyone behind it).
 * - A failure past its address's free failures of the minute is answered
 *   after a delay that doubles with each further failure
 *   ({@link REGISTER_FAILURE_DELAY_BASE_MS} up to
 *   {@link REGISTER_FAILURE_DELAY_MAX_MS}). A connection handles one frame
 *   at a time, so each of its guesses waits; connections per address are
 *   capped (`connectionsPerAddressMax`) and each is closed after
 *   `registerFailuresPerConnectionMax` failures. A success is answered at once.
 * - Past a username's free failures of the minute, the REGISTERs naming it
 *   are checked one at a time, and each failure holds the turn for its
 *   delay: a guesser spread over many addresses gets at most one try per
 *   delay at that username. The right password then waits its turn behind
 *   the guesses queued before it: slowed, never refused.
 *
 * Usernames are counted by a digest, so the memory per key does not grow
 * with what a client sends.
 */
export class RegisterThrottle {
  private readonly addresses: RegisterRateLimiter;
  private readonly users: RegisterRateLimiter;
  /** Per username digest: the end of the queue of attempts checked one at a time. */
  private readonly turns = new Map<string, Promise<void>>();
  /** Delays under way, ended at once by `stop`. */
  private readonly sleepers = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly limits: RegisterThrottleLimits,
    now: () => number = Date.now,
  ) {
    this.addresses = new RegisterRateLimiter(limits.failedPerAddressPerMinute, 100_000, now);
    this.users = new RegisterRateLimiter(limits.failedPerUserPerMinute, 100_000, now);
  }

  /**
   * Runs `check` (undefined: bad credentials) under the rules above. Resolves
   * `stopped` instead when the gateway stops while the attempt waits.
   */
  async attempt<T>(
    address: string,
    username: string,
    check: () => Promise<T | undefined>,
  ): Promise<ThrottledCheck<T>> {
    const user = digest(username);
    if (this.users.excess(user) < 0) return this.checkOnce(address, user, check);
    const previous = this.turns.get(user) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.turns.set(user, tail);
    try {
      await previous;
      if (this.stopped) return { kind: 'stopped' };
      return await this.checkOnce(address, user, check);
    } finally {
      release();
      if (this.turns.get(user) === tail) this.turns.delete(user);
    }
  }

  /** Ends every delay at once; attempts still queued resolve `stopped`. */
  stop(): void {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
  }

  private async checkOnce<T>(
    address: string,
    user: string,
    check: () => Promise<T | undefined>,
  ): Promise<ThrottledCheck<T>> {
    const value = await check();
    if (value !== undefined) return { kind: 'checked', value };
    this.addresses.recordFailure(address);
    this.users.recordFailure(user);
    const delayMs = Math.max(
      failureDelayMs(this.addresses.excess(address)),
      failureDelayMs(this.users.excess(user)),
    );
    if (delayMs > 0) await this.sleep(delayMs);
    return { kind: 'checked', value: undefined };
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}

/**
 * The delay of a failure that is `excess` past its free ones (counted
 * after it): 0 within them, then the base, doubling, up to the cap.
 */
export function failureDelayMs(excess: number): number {
  if (excess <= 0) return 0;
  return Math.min(
    REGISTER_FAILURE_DELAY_BASE_MS * 2 ** Math.min(excess - 1, 30),
    REGISTER_FAILURE_DELAY_MAX_MS,
  );
}

function digest(username: string): string {
  return createHash('sha256').update(username).digest('base64');
}
