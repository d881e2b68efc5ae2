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
}

/**
 * Default: the published sizes (1 to 1,024 connections; 10k, 100k and 1M
 * sessions; 100k, 1M and 5M ops): 23 minutes on 2 cores busy with other work.
 * Quick: smaller sessions and journals (10k/100k/300k sessions,
 * 100k/300k/1M ops): 10 minutes on 2 busy cores. Smoke: tiny sizes for CI; its
 * numbers only prove that every figure is produced.
 */
const PLANS: Readonly<Record<BenchOptions['profile'], ScalingPlan>> = {
  default: {
    connections: [1, 16, 64, 256, 1024],
    rounds: 3,
    sessions: [10_000, 100_000, 1_000_000],
    journalOps: [100_000, 1_000_000, 5_000_000],
    restartRepeats: 3,
    fillConnections: 256,
  },
  quick: {
    connections: [1, 16, 64, 256, 1024],
    rounds: 2,
    sessions: [10_000, 100_000, 300_000],
    journalOps: [100_000, 300_000, 1_000_000],
    restartRepeats: 3,
    fillConnections: 256,
  },
  smoke: {
    connections: [1, 4, 16],
    rounds: 1,
    sessions: [1000, 2000, 4000],
    journalOps: [1000, 2000, 4000],
    restartRepeats: 1,
    fillConnections: 16,
  },
};

/** The plan of `options`' profile. */
export function scalingPlan(options: BenchOptions): ScalingPlan {
  return PLANS[options.profile];
}
