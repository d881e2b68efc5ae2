import { type BenchContext } from './bench-context';
import { freePort } from './free-port';
import { withFreshOnceService } from './fresh-once-service';
import { type LoadReport } from './load-report';
import { runLoad } from './load-runner';

/** The once closed loop again, with the metrics listener on and scraped throughout. */
export interface MetricsOnRun {
  readonly load: LoadReport;
  /** Scrapes of `/metrics` that answered 200 while the load ran. */
  readonly scrapes: number;
  /** Scrapes that failed or answered otherwise. */
  readonly failedScrapes: number;
  readonly scrapeIntervalMs: number;
}

/**
 * Prometheus scrapes every 15 s by default; once a second is far harsher,
 * so the cost of serving scrapes shows, not only the cost of counting.
 */
const SCRAPE_INTERVAL_MS = 1000;

/**
 * The `--metrics` measurement of a run: the same closed loop as the once
 * figure, on a fresh data directory, with `ONCE_METRICS_PORT` set and
 * `/metrics` fetched every {@link SCRAPE_INTERVAL_MS}. Its throughput over
 * the metrics-off closed loop of the same run is `ratio_metrics_on_vs_off`.
 */
export async function measureOnceWithMetrics(
  context: BenchContext,
  index: number,
): Promise<MetricsOnRun> {
  const metricsPort = await freePort();
  const env = { ONCE_METRICS_PORT: String(metricsPort) };
  return withFreshOnceService(context, `metrics-on-${index}`, env, async (service) => {
    let scrapes = 0;
    let failedScrapes = 0;
    const scrape = async () => {
      try {
        const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        await response.text();
        if (response.status === 200) scrapes++;
        else failedScrapes++;
      } catch {
        failedScrapes++;
      }
    };
    const timer = setInterval(() => void scrape(), SCRAPE_INTERVAL_MS);
    try {
      const load = await runLoad('once', service.port, { kind: 'closed' }, context);
      context.log(
        `  once closed loop, metrics on (scraped every ${SCRAPE_INTERVAL_MS} ms): ${Math.round(load.requestsPerSecond)} req/s`,
      );
      return { load, scrapes, failedScrapes, scrapeIntervalMs: SCRAPE_INTERVAL_MS };
    } finally {
      clearInterval(timer);
    }
  });
}
