import { type BenchOptions } from './bench-options';

/** The sizes `--scaling` measures at, per profile. */
export interface ScalingPlan {
  /** Connection counts of the throughput series (closed loop, `--depth` each). */
  readonly connections: readonly number[];
  /** Rounds over all connection counts; each point's figure is the median over them. */
  readonly rounds: number;
  /** Registered idle sessions of the memory series. */
  readonly sessions: readonly number[];
  /** Journal lengths (ops) of the restart series. */
  readonly journalOps: readonly number[];
  /** Restarts timed per journal length and case; the median is reported. */
  readonly restartRepeats: number;
  /** Connections of the load that fills the restart journals. */
  readonly fillConnections: number;
  /** Ledger accounts (keyed records) of the module-state series, one service each. */
  readonly moduleStates: readonly number[];
  /** SDK clients that open the accounts (each pipelining `--depth` opens). */
  readonly moduleStateFillClients: number;
  /** Rounds of the module-state loads, every size in each; the figures are medians over them. */
  readonly moduleStateRounds: number;
  /** ONCE_KEYED_CACHE_ENTRIES of the module-state services; absent: the service's default. */
  readonly keyedCacheEntries?: number;
}

/**
 * Default: the published sizes (1 to 1,024 connections; 10k, 100k and 1M
 * sessions; 100k, 1M and 5M ops; 10k, 100k, 1M and 10M accounts, the last
 * larger than the keyed cache's default 64 MiB): 23 minutes on 2 cores
 * busy with other work, plus the module-state series (its 10M fill alone
 * took 6 minutes in a quick run, 30k opens a second). Quick: smaller sessions and journals
 * (10k/100k/300k sessions, 100k/300k/1M ops, 10k/100k/1M accounts): 10
 * minutes on 2 busy cores, plus 4 to 11 for the module-state series. Smoke:
 * tiny sizes for CI; its numbers only prove that every figure is produced.
 * `--module-states` and `--keyed-cache-entries` replace a profile's sizes.
 */
const PLANS: Readonly<Record<BenchOptions['profile'], ScalingPlan>> = {
  default: {
    connections: [1, 16, 64, 256, 1024],
    rounds: 3,
    sessions: [10_000, 100_000, 1_000_000],
    journalOps: [100_000, 1_000_000, 5_000_000],
    restartRepeats: 3,
    fillConnections: 256,
    moduleStates: [10_000, 100_000, 1_000_000, 10_000_000],
    moduleStateFillClients: 64,
    moduleStateRounds: 3,
  },
  quick: {
    connections: [1, 16, 64, 256, 1024],
    rounds: 2,
    sessions: [10_000, 100_000, 300_000],
    journalOps: [100_000, 300_000, 1_000_000],
    restartRepeats: 3,
    fillConnections: 256,
    moduleStates: [10_000, 100_000, 1_000_000],
    moduleStateFillClients: 64,
    moduleStateRounds: 5,
  },
  smoke: {
    connections: [1, 4, 16],
    rounds: 1,
    sessions: [1000, 2000, 4000],
    journalOps: [1000, 2000, 4000],
    restartRepeats: 1,
    fillConnections: 16,
    moduleStates: [1000, 2000],
    moduleStateFillClients: 4,
    moduleStateRounds: 2,
  },
};

/** The plan of `options`' profile, with the sizes `options` replaces. */
export function scalingPlan(options: BenchOptions): ScalingPlan {
  const plan = PLANS[options.profile];
  return {
    ...plan,
    ...(options.moduleStates !== undefined && { moduleStates: options.moduleStates }),
    ...(options.keyedCacheEntries !== undefined && {
      keyedCacheEntries: options.keyedCacheEntries,
    }),
  };
}
