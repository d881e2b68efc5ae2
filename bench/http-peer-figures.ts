import { type PerRun, perRun } from './peer-figures';

/**
 * The HTTP peers' figures, each a median over the throughput runs, each
 * ratio taken inside a run: `POST /ledger/deposit` over keep-alive HTTP/1.1,
 * `--connections` connections of one request in flight, a new
 * `Idempotency-Key` per request. `http_once_*` is the reference service's
 * ledger HTTP API (exactly-once on its journal), its ratios once's
 * throughput over each NestJS peer's in the same run.
 */
export interface HttpPeerFigures {
  readonly http_once_rps_64: number;
  readonly ratio_http_once_vs_node_idempotency: number;
  readonly ratio_http_once_vs_plain: number;
  readonly http_once_p50_ms_at_half_peak: number;
  readonly http_once_p99_ms_at_half_peak: number;
  readonly http_node_idempotency_rps_64: number;
  readonly http_plain_rps_64: number;
  readonly ratio_http_node_idempotency_vs_plain: number;
  readonly http_node_idempotency_p50_ms_at_half_peak: number;
  readonly http_node_idempotency_p99_ms_at_half_peak: number;
  readonly http_plain_p50_ms_at_half_peak: number;
  readonly http_plain_p99_ms_at_half_peak: number;
}

/** How each HTTP peer figure is read from the throughput runs. */
export const HTTP_PEER_FIGURE_SAMPLES: { readonly [K in keyof HttpPeerFigures]: PerRun } = {
  http_once_rps_64: perRun((run) => run.httpPeers.once.closed.requestsPerSecond),
  ratio_http_once_vs_node_idempotency: perRun(
    (run) =>
      run.httpPeers.once.closed.requestsPerSecond /
      run.httpPeers['node-idempotency'].closed.requestsPerSecond,
  ),
  ratio_http_once_vs_plain: perRun(
    (run) =>
      run.httpPeers.once.closed.requestsPerSecond / run.httpPeers.plain.closed.requestsPerSecond,
  ),
  http_once_p50_ms_at_half_peak: perRun((run) => run.httpPeers.once.halfPeak.latency.p50Ms),
  http_once_p99_ms_at_half_peak: perRun((run) => run.httpPeers.once.halfPeak.latency.p99Ms),
  http_node_idempotency_rps_64: perRun(
    (run) => run.httpPeers['node-idempotency'].closed.requestsPerSecond,
  ),
  http_plain_rps_64: perRun((run) => run.httpPeers.plain.closed.requestsPerSecond),
  ratio_http_node_idempotency_vs_plain: perRun(
    (run) =>
      run.httpPeers['node-idempotency'].closed.requestsPerSecond /
      run.httpPeers.plain.closed.requestsPerSecond,
  ),
  http_node_idempotency_p50_ms_at_half_peak: perRun(
    (run) => run.httpPeers['node-idempotency'].halfPeak.latency.p50Ms,
  ),
  http_node_idempotency_p99_ms_at_half_peak: perRun(
    (run) => run.httpPeers['node-idempotency'].halfPeak.latency.p99Ms,
  ),
  http_plain_p50_ms_at_half_peak: perRun((run) => run.httpPeers.plain.halfPeak.latency.p50Ms),
  http_plain_p99_ms_at_half_peak: perRun((run) => run.httpPeers.plain.halfPeak.latency.p99Ms),
};

/** Unit and printed decimals of each HTTP peer figure. */
export const HTTP_PEER_FORMATS: {
  readonly [K in keyof HttpPeerFigures]: { unit: string; digits: number };
} = {
  http_once_rps_64: { unit: 'req/s', digits: 0 },
  ratio_http_once_vs_node_idempotency: { unit: '', digits: 3 },
  ratio_http_once_vs_plain: { unit: '', digits: 3 },
  http_once_p50_ms_at_half_peak: { unit: 'ms', digits: 2 },
  http_once_p99_ms_at_half_peak: { unit: 'ms', digits: 2 },
  http_node_idempotency_rps_64: { unit: 'req/s', digits: 0 },
  http_plain_rps_64: { unit: 'req/s', digits: 0 },
  ratio_http_node_idempotency_vs_plain: { unit: '', digits: 3 },
  http_node_idempotency_p50_ms_at_half_peak: { unit: 'ms', digits: 2 },
  http_node_idempotency_p99_ms_at_half_peak: { unit: 'ms', digits: 2 },
  http_plain_p50_ms_at_half_peak: { unit: 'ms', digits: 2 },
  http_plain_p99_ms_at_half_peak: { unit: 'ms', digits: 2 },
};
