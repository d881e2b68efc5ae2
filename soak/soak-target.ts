import { type OnceClientOptions } from '@once/sdk';
import { type AcknowledgementWatch } from './acknowledgement-watch';
import { type SoakChaos } from './chaos';
import { type ClusterConvergence } from './replica-comparison';
import { type ReplayCheck } from './replay-check';
import { type SeededRandom } from './seeded-random';
import { type ServiceBuild } from './service-build';
import { type SoakOptions } from './soak-options';

/** The settings every process of the run gets, and how long a (re)start may take. */
export interface TargetSettings {
  readonly env: Readonly<Record<string, string>>;
  readonly readyTimeoutMs: number;
}

/** What a target starts from: the same for one process and for a cluster. */
export interface TargetRun {
  /** The run directory: the processes' data directories go in it, and their logs when the run fails. */
  readonly workDir: string;
  /** The copy of the service's build every process runs. */
  readonly build: ServiceBuild;
  readonly settings: TargetSettings;
}

/** Where an SDK client of the run connects: one node, or the nodes of a cluster. */
export type ServiceAddress = Pick<OnceClientOptions, 'port' | 'nodes'>;

/** One node's graceful stop and full replay; `node` names it (`service` when there is one). */
export type NodeReplay = ReplayCheck & { readonly node: string };

/** What the end of a run found of the service's state on disk. */
export interface TargetVerification {
  /** Every node's graceful stop and replay, in the order they were stopped. */
  readonly replays: readonly NodeReplay[];
  /** In a cluster: whether every node reached the same state (see ClusterConvergence). */
  readonly cluster?: ClusterConvergence;
}

/**
 * What a soak run drives and checks: the reference service as one process,
 * or a cluster of nodes, with TCP proxies in front that the chaos cuts and
 * stalls. The run itself (load, drain, probes, verdict) is the same for both.
 */
export interface SoakTarget {
  /** How the load clients reach the service: through the proxies. */
  readonly loadAddress: ServiceAddress;
  /** How the setup, probe and balance clients reach it (no chaos runs while they do). */
  readonly directAddress: ServiceAddress;
  /** Every node's data directory, whose size the run samples. */
  readonly dataDirs: readonly string[];
  /** The service's log so far (one process only), whose snapshot and compaction lines tell the journal's length. */
  serviceLogs?(): string;
  /** Starts killing processes and cutting links; `watch` hears of the load's acknowledgements. */
  startChaos(random: SeededRandom, options: SoakOptions, watch: AcknowledgementWatch): SoakChaos;
  /**
   * Once the clients are done: the op the service has committed (in a
   * cluster, once every node applied the same ops, when they do).
   */
  settle(): Promise<number>;
  /** Stops every process gracefully and replays each journal from op 1. */
  stopAndVerify(committedOp: number): Promise<TargetVerification>;
  /** Writes every process's output into the run directory, beside the data (a failed run). */
  writeLogs(): Promise<void>;
  /** Kills whatever still runs and closes the proxies. */
  close(): Promise<void>;
}
