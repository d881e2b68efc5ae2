import { type Engine, type PingClusterView, type ReplayProgress } from '@once/engine/internal';
import { type JournalStore } from '@once/journal/internal';

/**
 * What a cluster node tells metrics and readiness: its role, and the highest
 * op it knows the cluster's stream holds (`ClusterNode` has both).
 */
export interface ClusterMetricsView {
  readonly view: PingClusterView;
  /** Highest op known to be in the stream, as far as this node knows without asking it. */
  readonly streamOp: number;
}

/** What a gateway tells metrics (`OnceServer` has it all). */
export interface GatewayMetricsView {
  /** Read at scrape time. */
  readonly connectionCount: number;
  /** Read at scrape time. */
  readonly requestsInFlight: number;
  /** Each applied COMMAND's or LOGOUT's admission-to-reply latency, in ms. */
  onReplyLatency?(listener: (latencyMs: number) => void): () => void;
}

/**
 * Everything {@link OnceMetrics} reads from a node. Only `engine` and
 * `journal` are required; what is missing is not exported (a node without a
 * gateway has no connection gauge, a single node no cluster gauges).
 *
 * Values are read when Prometheus scrapes, except the per-entry and
 * per-batch events the metrics subscribe to (applied outcomes, batch
 * writes): the hot path pays for nothing it does not already do.
 */
export interface OnceMetricsSource {
  readonly engine: Engine;
  /** The node's LevelDB journal: all of it on a single node, the applied copy in a cluster. */
  readonly journal: JournalStore;
  /** The replay's latest progress report; undefined before the first one. */
  readonly replayProgress?: () => ReplayProgress | undefined;
  /** Why boot failed, when it did (the node never becomes ready). */
  readonly bootFailure?: () => Error | undefined;
  readonly gateway?: () => GatewayMetricsView | undefined;
  /** Present in cluster mode. */
  readonly cluster?: ClusterMetricsView;
}
