import {
  type BenchFigures,
  type BenchTargets,
  FIGURE_SAMPLES,
  type TargetCheck,
} from './bench-figures';
import { type BenchOptions } from './bench-options';
import { type EnvironmentInfo } from './environment-info';
import { type DurablePeersReport } from './durable-peers';
import { type ScalingSessionsReport } from './scaling-sessions';
import { HTTP_PEER_FORMATS } from './http-peer-figures';
import { type HttpPeersReport } from './http-peers';
import { PEER_FORMATS } from './peer-figures';
import { type RestartFigures } from './restart-run';
import { formatTable } from './text-table';
import { type ThroughputRun } from './throughput-run';

/** The JSON file: the figures at top level, then everything they were computed from. */
export interface BenchDocument extends BenchFigures {
  /**
   * `--metrics`: the once closed loop's throughput with metrics on (scraped
   * every second) over the same run's with metrics off; median over runs.
   */
  readonly ratio_metrics_on_vs_off?: number;
  /** The figures held to a target: the target, and whether the median reached it. */
  readonly targets: BenchTargets;
  readonly environment: EnvironmentInfo;
  readonly settings: Omit<BenchOptions, 'out'>;
  readonly runs: readonly ThroughputRun[];
  readonly restarts: RestartFigures;
  readonly idleSessions: readonly ScalingSessionsReport[];
  /** The durable peers' servers and their exactly-once checks. */
  readonly peers: DurablePeersReport;
  /** The HTTP peers measured and their Redis. */
  readonly httpPeers: HttpPeersReport;
}

/** Unit and printed decimals of each figure. */
const FORMATS: { readonly [K in keyof BenchFigures]: { unit: string; digits: number } } = {
  once_rps_64: { unit: 'req/s', digits: 0 },
  nest_tcp_rps_64: { unit: 'req/s', digits: 0 },
  ratio_once_vs_nest_tcp: { unit: '', digits: 3 },
  avg_group_size: { unit: 'entries', digits: 1 },
  raw_level_rps_same_batch: { unit: 'entries/s', digits: 0 },
  ratio_once_vs_raw_level: { unit: '', digits: 3 },
  p50_ms_at_half_peak: { unit: 'ms', digits: 2 },
  p99_ms_at_half_peak: { unit: 'ms', digits: 2 },
  raw_level_p50_ms_same_rate: { unit: 'ms', digits: 2 },
  raw_level_p99_ms_same_rate: { unit: 'ms', digits: 2 },
  ratio_p99_vs_raw_level_same_rate: { unit: '', digits: 2 },
  replay_eps: { unit: 'entries/s', digits: 0 },
  raw_iter_eps: { unit: 'entries/s', digits: 0 },
  ratio_replay_vs_raw_iter: { unit: '', digits: 3 },
  restart_s_with_snapshot: { unit: 's', digits: 2 },
  restart_s_without_snapshot: { unit: 's', digits: 2 },
  restart_ops: { unit: 'ops', digits: 0 },
  bytes_per_idle_session: { unit: 'bytes', digits: 0 },
  ratio_reply_check_on_vs_off: { unit: '', digits: 3 },
  ...PEER_FORMATS,
  ...HTTP_PEER_FORMATS,
};

/**
 * The figures as a text table: the median, its unit, the samples it is the
 * median of, and its target if it has one.
 */
export function figuresTable(document: BenchDocument): string {
  const keys = Object.keys(FORMATS) as (keyof BenchFigures)[];
  const rows = keys.map((key) => {
    const { unit, digits } = FORMATS[key];
    const samples = FIGURE_SAMPLES[key](document.runs, document.restarts, document.idleSessions);
    return [
      key,
      document[key].toFixed(digits),
      unit,
      samples.map((value) => value.toFixed(digits)).join(' '),
      describeTarget(document.targets[key]),
    ];
  });
  if (document.ratio_metrics_on_vs_off !== undefined) {
    const samples = metricsRatioSamples(document.runs);
    rows.push([
      'ratio_metrics_on_vs_off',
      document.ratio_metrics_on_vs_off.toFixed(3),
      '',
      samples.map((value) => value.toFixed(3)).join(' '),
    ]);
  }
  return formatTable(['figure', 'median', 'unit', 'samples', 'target'], rows);
}

/** `≥ 0.97 reached`, `≥ 0.97 not reached`, or nothing for a figure without a target. */
function describeTarget(check: TargetCheck | undefined): string {
  if (check === undefined) return '';
  return `≥ ${check.atLeast} ${check.reached ? 'reached' : 'not reached'}`;
}

/** Per run with `metricsOn`: its throughput over the same run's metrics-off closed loop. */
export function metricsRatioSamples(runs: readonly ThroughputRun[]): number[] {
  return runs.flatMap((run) =>
    run.metricsOn ? [run.metricsOn.load.requestsPerSecond / run.once.requestsPerSecond] : [],
  );
}
