import { LoadStats, type LoadStatsReport } from './load-stats';

/**
 * The stats a set of connections reports into when it is measured several
 * times in a row (one window per connection count): the connections keep
 * the one object they were opened with, and {@link nextPhase} starts fresh
 * counters behind it, so no answer of one window counts in another.
 */
export class PhasedLoadStats extends LoadStats {
  private current = new LoadStats();

  /** Starts new counters; everything from now on is counted there. */
  nextPhase(): void {
    this.current = new LoadStats();
  }

  override setWindow(startMs: number, endMs: number): void {
    this.current.setWindow(startMs, endMs);
  }

  override sent(count: number, sentAtMs: number): void {
    this.current.sent(count, sentAtMs);
  }

  override answered(sentAtMs: number, answeredAtMs: number, ok: boolean): void {
    this.current.answered(sentAtMs, answeredAtMs, ok);
  }

  override unanswered(count: number): void {
    this.current.unanswered(count);
  }

  /** The current phase's counters. */
  override report(): LoadStatsReport {
    return this.current.report();
  }
}
