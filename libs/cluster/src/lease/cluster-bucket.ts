import { jetstream } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { type NatsConnection } from '@nats-io/transport-node';
import { clusterNames } from '../cluster-names';

/** Options of {@link openClusterBucket}. */
export interface ClusterBucketOptions {
  /** An open connection; the bucket never closes it. */
  readonly connection: NatsConnection;
  /** The cluster's name (`ONCE_CLUSTER_NAME`); the bucket is `clusterNames(name).bucket`. */
  readonly clusterName: string;
  /**
   * How long a write lives: JetStream removes a key's value this long after
   * it was written unless it is written again. The lease and the heartbeats
   * both expire by it, so every node must use the same.
   */
  readonly ttlMs: number;
  /** Copies JetStream keeps of the bucket, when this node is the one creating it. */
  readonly replicas: number;
  /** How long one request (get, create, update, delete) may take before it fails. */
  readonly requestTimeoutMs: number;
}

/** The bucket exists with another TTL than this node's: nodes would disagree on when a lease ends. */
export class ClusterBucketMismatchError extends Error {
  readonly code = 'CLUSTER_BUCKET_MISMATCH';
  override readonly name = 'ClusterBucketMismatchError';
}

/**
 * The cluster's KV bucket (the lease key and the node heartbeats), created
 * on first use with one value per key (history 1) and `ttlMs` as its max
 * age, or opened as another node created it. Refuses a bucket whose TTL is
 * not `ttlMs`.
 */
export async function openClusterBucket(options: ClusterBucketOptions): Promise<KV> {
  const { bucket } = clusterNames(options.clusterName);
  const js = jetstream(options.connection, { timeout: options.requestTimeoutMs });
  const kv = await new Kvm(js).create(bucket, {
    history: 1,
    ttl: options.ttlMs,
    replicas: options.replicas,
    timeout: options.requestTimeoutMs,
  });
  const { ttl } = await kv.status();
  if (ttl !== options.ttlMs) {
    throw new ClusterBucketMismatchError(
      `the KV bucket ${bucket} expires values after ${ttl} ms, this node after ${options.ttlMs} ms: ` +
        'every node of a cluster needs the same lease TTL',
    );
  }
  return kv;
}
