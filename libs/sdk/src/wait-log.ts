import { type OnceClientLogger } from './client-logger';

/** Least time between two "waiting" lines, ms: the first wait is logged, then at most one per interval. */
export const WAIT_LOG_INTERVAL_MS = 30_000;

/** What one wait is, as the `waiting` event says it. */
export interface WaitLine {
  readonly attempt: number;
  readonly delayMs: number;
  readonly message: string;
}

/**
 * The log lines of a client's reconnect loop, rate-limited so that a client
 * waiting for hours writes a line per {@link WAIT_LOG_INTERVAL_MS}, not one per
 * attempt, yet never waits without a word: the first wait is logged at once,
 * and each later line counts the waits it stands for. When a session is bound
 * after a wait that was logged, one line says so (so the last line of a
 * recovered client is not a stale "waiting"). Kept free of sockets and
 * timers (the clock is given) so that the rate can be tested alone.
 */
export class WaitLog {
  private lastLineAt: number | undefined;
  /** Waits since the last line that no line reported. */
  private unreported = 0;
  /** Waits since the last bind, and whether any of them was logged. */
  private waits = 0;
  private logged = false;

  constructor(
    private readonly logger: OnceClientLogger | undefined,
    private readonly intervalMs = WAIT_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The client is about to wait before reconnect round `attempt`. */
  waiting({ attempt, delayMs, message }: WaitLine): void {
    this.waits += 1;
    if (!this.logger) return;
    const at = this.now();
    if (this.lastLineAt !== undefined && at - this.lastLineAt < this.intervalMs) {
      this.unreported += 1;
      return;
    }
    const more =
      this.unreported > 0
        ? ` (${this.unreported} more ${this.unreported === 1 ? 'wait' : 'waits'} since the last line)`
        : '';
    this.logger.warn(
      `once client: no session yet; waiting ${Math.round(delayMs)} ms before reconnect attempt ${attempt}: ${message}${more}`,
    );
    this.lastLineAt = at;
    this.unreported = 0;
    this.logged = true;
  }

  /** A session is bound on `node` (`host:port`): the waits are over. */
  bound(node: string): void {
    if (this.logger && this.logged) {
      const line = `once client: session bound on ${node} after ${this.waits} ${this.waits === 1 ? 'wait' : 'waits'}`;
      if (this.logger.log) this.logger.log(line);
      else this.logger.warn(line);
    }
    this.waits = 0;
    this.logged = false;
  }

  /** A running client gave up (its caller sees the error on every request; the log says it once). */
  stopped(message: string): void {
    this.logger?.warn(`once client: stopped: ${message}`);
  }
}
