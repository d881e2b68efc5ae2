import { type NatsConnection } from '@nats-io/transport-node';
import { type ClusterKeyring } from '../key';
import { type ClusterLogger, SILENT_CLUSTER_LOGGER } from './cluster-logger';

/** Options of {@link ClusterLease}. */
export interface ClusterLeaseOptions {
  /** An open NATS connection; the lease uses it and never closes it. */
  readonly connection: NatsConnection;
  /** This node's id (`ONCE_NODE_ID`), unique in the cluster. */
  readonly nodeId: string;
  /**
   * The cluster key(s): every value this node writes is signed with the
   * first, and a value none of them verifies names no leader. Required.
   */
  readonly keyring: ClusterKeyring;
  /** The `host:port` clients should use to reach this node (`ONCE_ADVERTISE`). Default null. */
  readonly advertise?: string | null;
  /** The cluster's name (`ONCE_CLUSTER_NAME`), which names the bucket. Default `once`. */
  readonly clusterName?: string;
  /**
   * How long the lease lives without a renewal: the bucket's TTL. A holder
   * that has not renewed for this long stops calling itself leader, and the
   * bucket frees the key for the others. Every node must use the same.
   * Default 3000 ms.
   */
  readonly ttlMs?: number;
  /**
   * How often the holder renews, and the others read the key to learn that
   * it expired (the watch only tells of writes). At most half of `ttlMs`, so
   * one lost renewal never costs the lease. Default 1000 ms.
   */
  readonly renewIntervalMs?: number;
  /** How long one KV request may take before it counts as failed. Default `renewIntervalMs`. */
  readonly requestTimeoutMs?: number;
  /** Copies JetStream keeps of the bucket when this node creates it (`ONCE_CLUSTER_REPLICAS`). Default 3. */
  readonly replicas?: number;
  /** The lease's key in the bucket. Default `leader`. */
  readonly key?: string;
  /**
   * The highest term known outside the bucket (e.g. the journal's last
   * leader term); a new leadership takes a term above it. Default: none.
   */
  readonly termFloor?: () => number | Promise<number>;
  /** Where takeovers, losses and failed writes are logged. Default: nowhere. */
  readonly logger?: ClusterLogger;
}

export type ResolvedLeaseOptions = Required<Omit<ClusterLeaseOptions, 'termFloor'>> &
  Pick<ClusterLeaseOptions, 'termFloor'>;

export const LEASE_DEFAULTS = Object.freeze({
  clusterName: 'once',
  ttlMs: 3000,
  renewIntervalMs: 1000,
  replicas: 3,
  key: 'leader',
});

/** The options with their defaults; throws a RangeError naming an option out of its range. */
export function resolveLeaseOptions(options: ClusterLeaseOptions): ResolvedLeaseOptions {
  const {
    ttlMs,
    intervalMs: renewIntervalMs,
    requestTimeoutMs,
    replicas,
  } = resolveBucketTiming(
    options.ttlMs,
    { name: 'renewIntervalMs', value: options.renewIntervalMs },
    options.requestTimeoutMs,
    options.replicas,
  );
  checkNodeId(options.nodeId);
  return {
    connection: options.connection,
    nodeId: options.nodeId,
    keyring: options.keyring,
    advertise: options.advertise ?? null,
    clusterName: options.clusterName ?? LEASE_DEFAULTS.clusterName,
    ttlMs,
    renewIntervalMs,
    requestTimeoutMs,
    replicas,
    key: options.key ?? LEASE_DEFAULTS.key,
    termFloor: options.termFloor,
    logger: options.logger ?? SILENT_CLUSTER_LOGGER,
  };
}

/** The timing of a writer to the cluster bucket (the lease's holder, a heartbeat), checked. */
export interface BucketTiming {
  readonly ttlMs: number;
  readonly intervalMs: number;
  readonly requestTimeoutMs: number;
  readonly replicas: number;
}

/**
 * Fills in the bucket's defaults and checks the rules the lease and the
 * heartbeats share: the interval at most half the TTL (one lost write never
 * costs a key), a request no longer than the TTL. `interval` names the
 * caller's option in the error.
 */
export function resolveBucketTiming(
  ttlMsOption: number | undefined,
  interval: { readonly name: string; readonly value: number | undefined },
  requestTimeoutMsOption: number | undefined,
  replicasOption: number | undefined,
): BucketTiming {
  const ttlMs = ttlMsOption ?? LEASE_DEFAULTS.ttlMs;
  const intervalMs = interval.value ?? LEASE_DEFAULTS.renewIntervalMs;
  const requestTimeoutMs = requestTimeoutMsOption ?? intervalMs;
  const replicas = replicasOption ?? LEASE_DEFAULTS.replicas;
  checkIntegerOption('ttlMs', ttlMs, 2, Number.MAX_SAFE_INTEGER);
  checkIntegerOption(interval.name, intervalMs, 1, Math.floor(ttlMs / 2));
  checkIntegerOption('requestTimeoutMs', requestTimeoutMs, 1, ttlMs);
  checkIntegerOption('replicas', replicas, 1, 5);
  return { ttlMs, intervalMs, requestTimeoutMs, replicas };
}

/** Throws a RangeError naming option `name` unless `value` is an integer from `min` to `max`. */
export function checkIntegerOption(name: string, value: number, min: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

/** Node ids are key tokens (`node.<id>`): the letters, digits, `-` and `_` of `ONCE_NODE_ID`. */
export function checkNodeId(nodeId: string): void {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(nodeId)) {
    throw new RangeError(
      `nodeId ${JSON.stringify(nodeId)} must be 1 to 64 letters, digits, "-" or "_"`,
    );
  }
}
