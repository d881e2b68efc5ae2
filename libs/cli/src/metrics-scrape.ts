import { CliError } from './cli-error';

/**
 * The gauge of sessions in the table on a node's Prometheus endpoint. PING
 * carries no session count, and the protocol is not extended for a status
 * line, so `once status` reads it from the metrics listener when it is given
 * one (`--metrics-url`).
 */
export const SESSIONS_METRIC = 'once_sessions';

/**
 * The value of the unlabelled sample `name` in Prometheus text `text`;
 * undefined when it is absent.
 */
export function sampleOf(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    const match = /^(?:\{\})?\s+(\S+)/.exec(rest);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/**
 * The Prometheus endpoint that `url` names. `journal tail --metrics-url`
 * takes the listener's base URL (`http://host:port`), so `status` takes it
 * too: a URL without a path means the listener's `/metrics`. A URL with a
 * path is used as it is (a proxy may serve the metrics elsewhere).
 */
export function metricsEndpointOf(url: string): URL {
  let endpoint: URL;
  try {
    endpoint = new URL(url);
  } catch {
    throw new CliError('INVALID_URL', `not an http URL: ${url}`, 2);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new CliError('INVALID_URL', `not an http URL: ${url}`, 2);
  }
  if (endpoint.pathname === '/' || endpoint.pathname === '') endpoint.pathname = '/metrics';
  return endpoint;
}

/** Scrapes `url` and returns the sessions gauge; throws a CliError naming the failure. */
export async function scrapeSessions(
  base: string,
  timeoutMs = 5000,
  headers: Record<string, string> = {},
): Promise<number> {
  const url = metricsEndpointOf(base).href;
  let text: string;
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 401) {
      throw new Error('HTTP 401: give the operations token file (--operations-token-file)');
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    text = await response.text();
  } catch (error) {
    throw new CliError('METRICS_UNREACHABLE', `cannot scrape ${url}: ${(error as Error).message}`);
  }
  const value = sampleOf(text, SESSIONS_METRIC);
  if (value === undefined) {
    throw new CliError('METRIC_MISSING', `${url} has no ${SESSIONS_METRIC} sample`);
  }
  return value;
}
