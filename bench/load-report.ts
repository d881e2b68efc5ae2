import { type EventLoopScrape } from './event-loop-scrape';
import { type LatencySummary } from './latency-samples';

/** The one JSON line a load generator prints on stdout. */
export interface LoadReport {
  readonly target: 'once' | 'nest-tcp' | 'nest-deposit' | 'http-deposit';
  readonly mode: 'closed' | 'open' | 'fixed';
  readonly connections: number;
  readonly depth: number;
  readonly payloadBytes: number;
  /** Open loop: the rate asked for. */
  readonly offeredRatePerSecond?: number;
  /** Requests sent per second inside the window (open loop: what was actually offered). */
  readonly sentPerSecond: number;
  /** OK answers per second inside the window; fixed mode: over the whole run. */
  readonly requestsPerSecond: number;
  readonly completed: number;
  readonly errors: number;
  readonly latency: LatencySummary;
  /** Measurement window, Unix-epoch ms (absent in fixed mode). */
  readonly windowStartEpochMs?: number;
  readonly windowEndEpochMs?: number;
  readonly durationMs: number;
  /**
   * With `--metrics-port`: the service's event loop while the connections
   * were set up (REGISTER's scrypt hashes on its thread pool), scraped once
   * they were, so the service's next window holds the load alone.
   */
  readonly setupStall?: EventLoopScrape;
}
