/** What one scrape of the service's `/metrics` says of its event loop. */
export interface EventLoopScrape {
  /** The longest delay since the previous scrape, ms. */
  readonly maxMs: number;
  /** The 99th percentile since the previous scrape, ms. */
  readonly p99Ms: number;
  /** The longest since the previous scrape counted in the service's main-thread CPU time (at most `maxMs`), ms. */
  readonly maxOnCpuMs: number;
  /** The longest since the node opened, ms. */
  readonly peakMs: number;
}

/**
 * Scrapes `http://127.0.0.1:<port>/metrics` of a service's operations
 * listener and reads its event-loop delay gauges
 * (`once_event_loop_delay_{max,p99,max_on_cpu,peak}_seconds`). Each scrape starts a new
 * window of the max and the p99, so the bench scrapes at the start and at
 * the end of each phase and is the listener's only scraper.
 */
export async function scrapeEventLoop(metricsPort: number): Promise<EventLoopScrape> {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${text}`);
  const seconds = (name: string) => {
    const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    if (!match) throw new Error(`/metrics reports no ${name}`);
    return Number(match[1]) * 1000;
  };
  return {
    maxMs: seconds('once_event_loop_delay_max_seconds'),
    p99Ms: seconds('once_event_loop_delay_p99_seconds'),
    maxOnCpuMs: seconds('once_event_loop_delay_max_on_cpu_seconds'),
    peakMs: seconds('once_event_loop_delay_peak_seconds'),
  };
}

/**
 * For a load child given `--metrics-port`: scrapes once its clients are set
 * up, so the service's next window holds the load alone (a REGISTER costs
 * the service a scrypt hash on its thread pool, which is not the load's).
 * Without a port, nothing.
 */
export function scrapeSetupStall(
  metricsPort: number | undefined,
): Promise<EventLoopScrape | undefined> {
  return metricsPort === undefined ? Promise.resolve(undefined) : scrapeEventLoop(metricsPort);
}

/** The scrape with the longest delay. */
export function longestScrape(scrapes: readonly EventLoopScrape[]): EventLoopScrape {
  return scrapes.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
}
