import { type FollowerRestartFigures } from './cluster-restart-run';
import { type ClusterThroughputRun } from './cluster-throughput-run';
import { type FailoverSample } from './failover-run';
import { median } from './stats';
import { formatTable } from './text-table';

/**
 * The headline figures of `--cluster`, under the JSON keys docs/performance
 * quotes. Throughput figures are medians over the runs, a ratio is taken
 * within each run first; failover figures are over the kills.
 */
export interface ClusterFigures {
  readonly cluster_rps_64: number;
  readonly cluster_p50_ms_64: number;
  readonly cluster_p99_ms_64: number;
  readonly cluster_avg_group_size: number;
  readonly raw_jetstream_rps_same_group: number;
  readonly ratio_cluster_vs_raw_jetstream: number;
  readonly failover_s_p50: number;
  readonly failover_s_max: number;
  readonly cluster_follower_restart_ms: number;
  readonly cluster_restart_ops: number;
}

/** What the figures are computed from. */
export interface ClusterMeasurements {
  readonly runs: readonly ClusterThroughputRun[];
  readonly failovers: readonly FailoverSample[];
  readonly followerRestart: FollowerRestartFigures;
}

/** How one figure is summarized from its samples, with its unit and printed decimals. */
interface FigureRule {
  readonly samples: (measured: ClusterMeasurements) => readonly number[];
  readonly summary: (samples: readonly number[]) => number;
  readonly unit: string;
  readonly digits: number;
}

function perRun(pick: (run: ClusterThroughputRun) => number, unit: string, digits: number) {
  return { samples: (m: ClusterMeasurements) => m.runs.map(pick), summary: median, unit, digits };
}

const failoverSeconds = (measured: ClusterMeasurements) =>
  measured.failovers.map((sample) => sample.failoverMs / 1000);

const RULES: { readonly [K in keyof ClusterFigures]: FigureRule } = {
  cluster_rps_64: perRun((run) => run.cluster.requestsPerSecond, 'req/s', 0),
  cluster_p50_ms_64: perRun((run) => run.cluster.latency.p50Ms, 'ms', 2),
  cluster_p99_ms_64: perRun((run) => run.cluster.latency.p99Ms, 'ms', 2),
  cluster_avg_group_size: perRun((run) => run.groups.entriesPerMessage, 'entries', 1),
  raw_jetstream_rps_same_group: perRun((run) => run.rawJetStream.entriesPerSecond, 'entries/s', 0),
  ratio_cluster_vs_raw_jetstream: perRun(
    (run) => run.cluster.requestsPerSecond / run.rawJetStream.entriesPerSecond,
    '',
    3,
  ),
  failover_s_p50: { samples: failoverSeconds, summary: median, unit: 's', digits: 2 },
  failover_s_max: {
    samples: failoverSeconds,
    summary: (samples) => (samples.length > 0 ? Math.max(...samples) : Number.NaN),
    unit: 's',
    digits: 2,
  },
  cluster_follower_restart_ms: {
    samples: (measured) => measured.followerRestart.readyAfterMs,
    summary: median,
    unit: 'ms',
    digits: 0,
  },
  cluster_restart_ops: {
    samples: (measured) => [measured.followerRestart.targetOps],
    summary: median,
    unit: 'ops',
    digits: 0,
  },
};

export function computeClusterFigures(measured: ClusterMeasurements): ClusterFigures {
  const figures = {} as Record<keyof ClusterFigures, number>;
  for (const key of Object.keys(RULES) as (keyof ClusterFigures)[]) {
    figures[key] = RULES[key].summary(RULES[key].samples(measured));
  }
  return figures;
}

/** The figures as a text table: the value, its unit, and the samples it summarizes. */
export function clusterFiguresTable(
  figures: ClusterFigures,
  measured: ClusterMeasurements,
): string {
  const keys = Object.keys(RULES) as (keyof ClusterFigures)[];
  return formatTable(
    ['figure', 'value', 'unit', 'samples'],
    keys.map((key) => {
      const { unit, digits } = RULES[key];
      return [
        key,
        figures[key].toFixed(digits),
        unit,
        RULES[key]
          .samples(measured)
          .map((value) => value.toFixed(digits))
          .join(' '),
      ];
    }),
  );
}
