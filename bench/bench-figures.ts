import { type ScalingSessionsReport } from './scaling-sessions';
import { HTTP_PEER_FIGURE_SAMPLES, type HttpPeerFigures } from './http-peer-figures';
import { PEER_FIGURE_SAMPLES, type PeerFigures } from './peer-figures';
import { type RestartFigures } from './restart-run';
import { median } from './stats';
import { type ThroughputRun } from './throughput-run';

/**
 * The headline figures, under the JSON keys docs/performance quotes. Each is a
 * median: over the throughput runs, the restarts or the memory probes.
 */
export interface BenchFigures extends PeerFigures, HttpPeerFigures {
  readonly once_rps_64: number;
  readonly nest_tcp_rps_64: number;
  readonly ratio_once_vs_nest_tcp: number;
  readonly avg_group_size: number;
  readonly raw_level_rps_same_batch: number;
  readonly ratio_once_vs_raw_level: number;
  readonly p50_ms_at_half_peak: number;
  readonly p99_ms_at_half_peak: number;
  readonly raw_level_p50_ms_same_rate: number;
  readonly raw_level_p99_ms_same_rate: number;
  readonly ratio_p99_vs_raw_level_same_rate: number;
  readonly replay_eps: number;
  readonly raw_iter_eps: number;
  readonly ratio_replay_vs_raw_iter: number;
  readonly restart_s_with_snapshot: number;
  readonly restart_s_without_snapshot: number;
  readonly restart_ops: number;
  readonly bytes_per_idle_session: number;
  readonly ratio_reply_check_on_vs_off: number;
}

/** What one figure is the median of. */
export type FigureSamples = (
  runs: readonly ThroughputRun[],
  restarts: RestartFigures,
  idle: readonly ScalingSessionsReport[],
) => readonly number[];

function perRun(pick: (run: ThroughputRun) => number): FigureSamples {
  return (runs) => runs.map(pick);
}

/**
 * How each figure is read from the measurements. A ratio is taken within each
 * run, between two measurements made minutes apart at most, and then its
 * median over runs: drift of the machine between runs cancels out (so it may
 * differ slightly from the ratio of the two medians). `restart_ops` is the
 * target size; the exact journal sizes are in `restarts`.
 */
export const FIGURE_SAMPLES: { readonly [K in keyof BenchFigures]: FigureSamples } = {
  once_rps_64: perRun((run) => run.once.requestsPerSecond),
  nest_tcp_rps_64: perRun((run) => run.nestTcp.requestsPerSecond),
  ratio_once_vs_nest_tcp: perRun(
    (run) => run.once.requestsPerSecond / run.nestTcp.requestsPerSecond,
  ),
  avg_group_size: perRun((run) => run.groupCommits.avgGroupSize),
  raw_level_rps_same_batch: perRun((run) => run.rawBatch.entriesPerSecond),
  ratio_once_vs_raw_level: perRun(
    (run) => run.once.requestsPerSecond / run.rawBatch.entriesPerSecond,
  ),
  p50_ms_at_half_peak: perRun((run) => run.halfPeak.latency.p50Ms),
  p99_ms_at_half_peak: perRun((run) => run.halfPeak.latency.p99Ms),
  raw_level_p50_ms_same_rate: perRun((run) => run.rawGroupCommit.latency.p50Ms),
  raw_level_p99_ms_same_rate: perRun((run) => run.rawGroupCommit.latency.p99Ms),
  ratio_p99_vs_raw_level_same_rate: perRun(
    (run) => run.halfPeak.latency.p99Ms / run.rawGroupCommit.latency.p99Ms,
  ),
  replay_eps: perRun((run) => run.replay.entriesPerSecond),
  raw_iter_eps: perRun((run) => run.rawIterate.entriesPerSecond),
  ratio_replay_vs_raw_iter: perRun(
    (run) => run.replay.entriesPerSecond / run.rawIterate.entriesPerSecond,
  ),
  restart_s_with_snapshot: (_, restarts) =>
    restarts.withSnapshot.readyAfterMs.map((ms) => ms / 1000),
  restart_s_without_snapshot: (_, restarts) =>
    restarts.withoutSnapshot.readyAfterMs.map((ms) => ms / 1000),
  restart_ops: (_, restarts) => [restarts.targetOps],
  bytes_per_idle_session: (_runs, _restarts, idle) => idle.map((report) => report.bytesPerSession),
  ratio_reply_check_on_vs_off: perRun(
    (run) => run.replyChecksOn.requestsPerSecond / run.replyChecksOff.requestsPerSecond,
  ),
  ...PEER_FIGURE_SAMPLES,
  ...HTTP_PEER_FIGURE_SAMPLES,
};

export function computeFigures(
  runs: readonly ThroughputRun[],
  restarts: RestartFigures,
  idle: readonly ScalingSessionsReport[],
): BenchFigures {
  const figures = {} as Record<keyof BenchFigures, number>;
  for (const key of Object.keys(FIGURE_SAMPLES) as (keyof BenchFigures)[]) {
    figures[key] = median(FIGURE_SAMPLES[key](runs, restarts, idle));
  }
  return figures;
}

/** What a figure's median should reach: at least `atLeast`. */
export interface FigureTarget {
  readonly atLeast: number;
}

/** The figures the bench holds to a target. */
export const FIGURE_TARGETS: { readonly [K in keyof BenchFigures]?: FigureTarget } = {
  ratio_reply_check_on_vs_off: { atLeast: 0.97 },
};

/** A target, and whether the figure's median reached it. */
export interface TargetCheck extends FigureTarget {
  readonly reached: boolean;
}

export type BenchTargets = { readonly [K in keyof BenchFigures]?: TargetCheck };

/** Each target of {@link FIGURE_TARGETS}, checked against the figures' medians. */
export function checkTargets(figures: BenchFigures): BenchTargets {
  const targets = Object.entries(FIGURE_TARGETS) as [keyof BenchFigures, FigureTarget][];
  return Object.fromEntries(
    targets.map(([key, target]) => [key, { ...target, reached: figures[key] >= target.atLeast }]),
  );
}
