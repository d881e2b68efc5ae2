import { type NatsConnection } from '@nats-io/transport-node';
import { type ClusterKeyring } from '../key';
import { type ClusterLogger, SILENT_CLUSTER_LOGGER } from '../lease/cluster-logger';
import { LEASE_DEFAULTS, resolveBucketTiming } from '../lease/lease-options';

/** Options of {@link NodeHeartbeat} and {@link ClusterMembers}. */
export interface HeartbeatOptions {
  /** An open NATS connection; used, never closed. */
  readonly connection: NatsConnection;
  /** The cluster's name (`ONCE_CLUSTER_NAME`), which names the bucket. Default `once`. */
  readonly clusterName?: string;
  /**
   * The cluster key(s): a heartbeat is signed with the first; one that none
   * verifies is not a node (see `encodeNodeInfo`). Required.
   */
  readonly keyring: ClusterKeyring;
  /**
   * How long a heartbeat lives: the bucket's TTL, shared with the lease (the
   * same bucket), so every node must use the same. Default 3000 ms.
   */
  readonly ttlMs?: number;
  /**
   * How often a node writes its heartbeat, and how often a watcher checks
   * the nodes it has not heard from within the TTL. At most half of `ttlMs`.
   * Default 1000 ms.
   */
  readonly intervalMs?: number;
  /** How long one KV request may take. Default `intervalMs`. */
  readonly requestTimeoutMs?: number;
  /** Copies JetStream keeps of the bucket when this node creates it. Default 3. */
  readonly replicas?: number;
  /** Default: nowhere. */
  readonly logger?: ClusterLogger;
}

export type ResolvedHeartbeatOptions = Required<HeartbeatOptions>;

/** The options with their defaults; throws a RangeError naming an option out of its range. */
export function resolveHeartbeatOptions(options: HeartbeatOptions): ResolvedHeartbeatOptions {
  const timing = resolveBucketTiming(
    options.ttlMs,
    { name: 'intervalMs', value: options.intervalMs },
    options.requestTimeoutMs,
    options.replicas,
  );
  return {
    connection: options.connection,
    clusterName: options.clusterName ?? LEASE_DEFAULTS.clusterName,
    keyring: options.keyring,
    ...timing,
    logger: options.logger ?? SILENT_CLUSTER_LOGGER,
  };
}
