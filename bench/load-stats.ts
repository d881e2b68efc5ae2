import { LatencySamples, type LatencySummary } from './latency-samples';

/** What one load generator measured. */
export interface LoadStatsReport {
  /** Requests answered OK inside the measurement window. */
  readonly completedInWindow: number;
  /** Requests answered OK in all (warm-up and drain included). */
  readonly completed: number;
  /** Requests answered with anything but OK, or never answered. */
  readonly errors: number;
  /** Requests sent inside the measurement window. */
  readonly sentInWindow: number;
  /** Latencies of the OK requests sent inside the window. */
  readonly latency: LatencySummary;
}

/**
 * The counters of one load generator. Times are `performance.now()`
 * milliseconds. The window excludes the warm-up: throughput counts the
 * answers that arrive inside it, latency the requests sent inside it.
 */
export class LoadStats {
  private windowStartMs = Number.POSITIVE_INFINITY;
  private windowEndMs = Number.POSITIVE_INFINITY;
  private completedInWindow = 0;
  private completed = 0;
  private errors = 0;
  private sentInWindow = 0;
  private readonly latencies = new LatencySamples();

  setWindow(startMs: number, endMs: number): void {
    this.windowStartMs = startMs;
    this.windowEndMs = endMs;
  }

  /** `count` requests were written to a socket at `sentAtMs`. */
  sent(count: number, sentAtMs: number): void {
    if (sentAtMs >= this.windowStartMs && sentAtMs < this.windowEndMs) this.sentInWindow += count;
  }

  /** One request sent at `sentAtMs` was answered at `answeredAtMs`. */
  answered(sentAtMs: number, answeredAtMs: number, ok: boolean): void {
    if (!ok) {
      this.errors++;
      return;
    }
    this.completed++;
    if (answeredAtMs >= this.windowStartMs && answeredAtMs < this.windowEndMs) {
      this.completedInWindow++;
    }
    if (sentAtMs >= this.windowStartMs && sentAtMs < this.windowEndMs) {
      this.latencies.add(answeredAtMs - sentAtMs);
    }
  }

  /** `count` requests were never answered (the run ended first). */
  unanswered(count: number): void {
    this.errors += count;
  }

  report(): LoadStatsReport {
    return {
      completedInWindow: this.completedInWindow,
      completed: this.completed,
      errors: this.errors,
      sentInWindow: this.sentInWindow,
      latency: this.latencies.summary(),
    };
  }
}
