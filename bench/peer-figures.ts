import { type ThroughputRun } from './throughput-run';

/**
 * The durable peers' figures, under the JSON keys docs/performance quotes: each a
 * median over the throughput runs, each ratio taken inside a run.
 */
export interface PeerFigures {
  readonly redis_peer_rps_64: number;
  readonly pg_peer_rps_64: number;
  readonly ratio_once_vs_redis_peer: number;
  readonly ratio_once_vs_pg_peer: number;
  readonly redis_peer_p50_ms_at_half_peak: number;
  readonly redis_peer_p99_ms_at_half_peak: number;
  readonly pg_peer_p50_ms_at_half_peak: number;
  readonly pg_peer_p99_ms_at_half_peak: number;
}

/** One figure's samples, one per throughput run. */
export type PerRun = (runs: readonly ThroughputRun[]) => readonly number[];

/** The samples of a figure read from each run alone. */
export function perRun(pick: (run: ThroughputRun) => number): PerRun {
  return (runs) => runs.map(pick);
}

/** How each peer figure is read from the throughput runs. */
export const PEER_FIGURE_SAMPLES: { readonly [K in keyof PeerFigures]: PerRun } = {
  redis_peer_rps_64: perRun((run) => run.redisPeer.closed.requestsPerSecond),
  pg_peer_rps_64: perRun((run) => run.pgPeer.closed.requestsPerSecond),
  ratio_once_vs_redis_peer: perRun(
    (run) => run.once.requestsPerSecond / run.redisPeer.closed.requestsPerSecond,
  ),
  ratio_once_vs_pg_peer: perRun(
    (run) => run.once.requestsPerSecond / run.pgPeer.closed.requestsPerSecond,
  ),
  redis_peer_p50_ms_at_half_peak: perRun((run) => run.redisPeer.halfPeak.latency.p50Ms),
  redis_peer_p99_ms_at_half_peak: perRun((run) => run.redisPeer.halfPeak.latency.p99Ms),
  pg_peer_p50_ms_at_half_peak: perRun((run) => run.pgPeer.halfPeak.latency.p50Ms),
  pg_peer_p99_ms_at_half_peak: perRun((run) => run.pgPeer.halfPeak.latency.p99Ms),
};

/** Unit and printed decimals of each peer figure. */
export const PEER_FORMATS: {
  readonly [K in keyof PeerFigures]: { unit: string; digits: number };
} = {
  redis_peer_rps_64: { unit: 'req/s', digits: 0 },
  pg_peer_rps_64: { unit: 'req/s', digits: 0 },
  ratio_once_vs_redis_peer: { unit: '', digits: 3 },
  ratio_once_vs_pg_peer: { unit: '', digits: 3 },
  redis_peer_p50_ms_at_half_peak: { unit: 'ms', digits: 2 },
  redis_peer_p99_ms_at_half_peak: { unit: 'ms', digits: 2 },
  pg_peer_p50_ms_at_half_peak: { unit: 'ms', digits: 2 },
  pg_peer_p99_ms_at_half_peak: { unit: 'ms', digits: 2 },
};
