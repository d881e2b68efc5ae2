import { Command, InvalidArgumentError } from 'commander';
import { positiveInteger } from './cli-numbers';

/** Everything that sizes one bench invocation. */
export interface BenchOptions {
  readonly profile: 'default' | 'quick' | 'smoke';
  /**
   * `--cluster`: the cluster figures (3 NATS servers, 3 once nodes) instead
   * of the single-node ones.
   */
  readonly cluster: boolean;
  /**
   * `--scaling`: how cost grows (throughput by connections, memory by
   * sessions, restart time by journal length; sizes in scaling-plan.ts)
   * instead of the single-node figures.
   */
  readonly scaling: boolean;
  /**
   * `--series`: the `--scaling` series to measure. Default all: throughput
   * (by connections), sessions (memory), restarts (by journal length),
   * module-state (by ledger accounts).
   */
  readonly scalingSeries: readonly ScalingSeries[];
  /** `--module-states`: the ledger sizes of the module-state series, instead of the profile's. */
  readonly moduleStates?: readonly number[];
  /** `--keyed-cache-entries`: ONCE_KEYED_CACHE_ENTRIES of the module-state services. */
  readonly keyedCacheEntries?: number;
  /**
   * `--metrics`: each throughput run also measures the once closed loop with
   * the metrics listener on and scraped, for `ratio_metrics_on_vs_off`.
   */
  readonly metrics: boolean;
  readonly out: string;
  /** Where the data directories of the run go (a temporary directory inside it). */
  readonly workDir: string;
  readonly connections: number;
  readonly depth: number;
  readonly payloadBytes: number;
  /** Throughput runs (each: once, NestJS TCP, raw LevelDB); medians over them. */
  readonly runs: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Ops in each journal filled for the restart figures. */
  readonly restartOps: number;
  /** ONCE_SNAPSHOT_EVERY_OPS of the with-snapshot restart case. */
  readonly restartSnapshotEveryOps: number;
  /** Restarts timed per case; the median is reported. */
  readonly restartRepeats: number;
  readonly idleSessions: number;
  /** Cluster: leader kills timed for the failover figures. */
  readonly failoverKills: number;
}

/** The series of `--scaling`, in the order they run. */
export const SCALING_SERIES = ['throughput', 'sessions', 'restarts', 'module-state'] as const;
export type ScalingSeries = (typeof SCALING_SERIES)[number];

type Profile = Omit<
  BenchOptions,
  | 'profile'
  | 'cluster'
  | 'scaling'
  | 'scalingSeries'
  | 'moduleStates'
  | 'keyedCacheEntries'
  | 'metrics'
  | 'out'
  | 'workDir'
>;

/**
 * The three sizes. Default: the figures to publish (restart at 1,000,000
 * ops). Quick: the same measurements, smaller, within about 3 minutes on 2
 * cores. Smoke: tiny, for CI; its numbers only prove that every figure is
 * produced.
 */
const PROFILES: Readonly<Record<BenchOptions['profile'], Profile>> = {
  default: {
    connections: 64,
    depth: 8,
    payloadBytes: 128,
    runs: 5,
    warmupMs: 3000,
    durationMs: 10_000,
    restartOps: 1_000_000,
    restartSnapshotEveryOps: 100_000,
    restartRepeats: 5,
    idleSessions: 10_000,
    failoverKills: 5,
  },
  quick: {
    connections: 64,
    depth: 8,
    payloadBytes: 128,
    runs: 3,
    warmupMs: 1000,
    durationMs: 3000,
    restartOps: 100_000,
    restartSnapshotEveryOps: 100_000,
    restartRepeats: 3,
    idleSessions: 10_000,
    failoverKills: 3,
  },
  smoke: {
    connections: 16,
    depth: 4,
    payloadBytes: 128,
    runs: 1,
    warmupMs: 200,
    durationMs: 1000,
    restartOps: 2000,
    restartSnapshotEveryOps: 1000,
    restartRepeats: 1,
    idleSessions: 10_000,
    failoverKills: 1,
  },
};

/**
 * The deepest pipeline per connection. The once service reads at most its
 * ring (8) requests of a session ahead anyway; far deeper only queues in
 * socket buffers.
 */
const MAX_DEPTH = 1024;

export const DEFAULT_OUT = 'bench/results/latest.json';
/** Where `--cluster` writes, unless `--out` says otherwise. */
export const DEFAULT_CLUSTER_OUT = 'bench/results/cluster-latest.json';
/** Where `--scaling` writes, unless `--out` says otherwise. */
export const DEFAULT_SCALING_OUT = 'bench/results/scaling-latest.json';
/** Next to the results (gitignored), on the repository's disk. */
export const DEFAULT_WORK_DIR = 'bench/results';

/** Parses the bench's flags: a profile, then per-flag overrides. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const flags = new Command()
    .name('npm run bench --')
    .description('once benchmark suite: throughput, latency, replay, restart and memory figures')
    .option('--quick', 'small sizes (about 3 minutes on 2 cores; restart at 100k ops)')
    .option('--smoke', 'tiny sizes (under 30 s, for CI; under 60 s with --cluster)')
    .option('--cluster', 'cluster figures (3 NATS servers, 3 nodes) instead of single-node ones')
    .option('--scaling', 'how cost grows: connections, sessions, journal length (own JSON file)')
    .option(
      '--series <names>',
      `with --scaling: the series to measure, comma-separated (${SCALING_SERIES.join(', ')}; default all)`,
      seriesList,
    )
    .option(
      '--module-states <counts>',
      'with --scaling: ledger accounts of the module-state series, comma-separated',
      countList,
    )
    .option(
      '--keyed-cache-entries <count>',
      'with --scaling: ONCE_KEYED_CACHE_ENTRIES of the module-state services (default: theirs)',
      positiveInteger,
    )
    .option('--metrics', 'also measure the once closed loop with metrics on (scraped every second)')
    .option(
      '--out <file>',
      `where to write the JSON results (default: ${DEFAULT_OUT}, ${DEFAULT_CLUSTER_OUT} with --cluster, ${DEFAULT_SCALING_OUT} with --scaling)`,
    )
    .option('--work-dir <dir>', 'where data directories go (a disk, not a tmpfs)', DEFAULT_WORK_DIR)
    .option('--connections <count>', 'connections per load generator', positiveInteger)
    .option('--depth <count>', 'closed loop: requests in flight per connection', positiveInteger)
    .option('--payload-bytes <bytes>', 'JSON bytes of each request payload', positiveInteger)
    .option('--runs <count>', 'throughput runs (medians over them)', positiveInteger)
    .option('--restart-ops <count>', 'ops per journal for the restart figures', positiveInteger)
    .option('--kills <count>', 'cluster: leader kills for the failover figures', positiveInteger)
    .parse(argv)
    .opts<{
      quick?: boolean;
      smoke?: boolean;
      cluster?: boolean;
      scaling?: boolean;
      series?: ScalingSeries[];
      moduleStates?: number[];
      keyedCacheEntries?: number;
      metrics?: boolean;
      out?: string;
      workDir: string;
      connections?: number;
      depth?: number;
      payloadBytes?: number;
      runs?: number;
      restartOps?: number;
      kills?: number;
    }>();
  if (flags.quick && flags.smoke) throw new Error('--quick and --smoke exclude each other');
  const profile = flags.smoke ? 'smoke' : flags.quick ? 'quick' : 'default';
  const preset = PROFILES[profile];
  const depth = flags.depth ?? preset.depth;
  if (depth > MAX_DEPTH) throw new Error(`--depth must be at most ${MAX_DEPTH}`);
  const restartOps = flags.restartOps ?? preset.restartOps;
  const cluster = flags.cluster === true;
  const scaling = flags.scaling === true;
  if (cluster && scaling) throw new Error('--cluster and --scaling exclude each other');
  const scalingOnly = [flags.series, flags.moduleStates, flags.keyedCacheEntries];
  if (!scaling && scalingOnly.some((flag) => flag !== undefined)) {
    throw new Error('--series, --module-states and --keyed-cache-entries need --scaling');
  }
  return {
    ...preset,
    profile,
    cluster,
    scaling,
    scalingSeries: flags.series ?? [...SCALING_SERIES],
    ...(flags.moduleStates !== undefined && { moduleStates: flags.moduleStates }),
    ...(flags.keyedCacheEntries !== undefined && { keyedCacheEntries: flags.keyedCacheEntries }),
    metrics: flags.metrics === true,
    out: flags.out ?? (cluster ? DEFAULT_CLUSTER_OUT : scaling ? DEFAULT_SCALING_OUT : DEFAULT_OUT),
    workDir: flags.workDir,
    connections: flags.connections ?? preset.connections,
    depth,
    payloadBytes: flags.payloadBytes ?? preset.payloadBytes,
    runs: flags.runs ?? preset.runs,
    restartOps,
    failoverKills: flags.kills ?? preset.failoverKills,
    // A journal shorter than the interval would have no snapshot to restart from.
    restartSnapshotEveryOps: Math.min(preset.restartSnapshotEveryOps, restartOps),
  };
}

/** `a,b`: series names of {@link SCALING_SERIES}, each at most once. */
function seriesList(value: string): ScalingSeries[] {
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(SCALING_SERIES as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(`unknown series "${name}" (${SCALING_SERIES.join(', ')})`);
    }
  }
  return [...new Set(names)] as ScalingSeries[];
}

/** `10000,100000`: positive integers. */
function countList(value: string): number[] {
  return value.split(',').map((count) => positiveInteger(count.trim()));
}
