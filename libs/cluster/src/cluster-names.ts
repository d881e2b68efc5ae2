/**
 * The NATS names of one once cluster, all derived from its name
 * (`ONCE_CLUSTER_NAME`, default `once`), so several clusters can share a NATS
 * deployment without touching each other's stream or buckets.
 */
export interface ClusterNames {
  /** The JetStream stream holding the journal. */
  readonly stream: string;
  /** The subject every journal append is published on. */
  readonly subject: string;
  /** The KV bucket of the leader lease and the node heartbeats. */
  readonly bucket: string;
}

/** Letters, digits, `-` and `_`: valid in stream, bucket and subject tokens alike. */
const CLUSTER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The names of cluster `clusterName`; throws a RangeError naming the rule when it is not a valid name. */
export function clusterNames(clusterName: string): ClusterNames {
  if (!CLUSTER_NAME.test(clusterName)) {
    throw new RangeError(
      `cluster name ${JSON.stringify(clusterName)} must be 1 to 64 letters, digits, "-" or "_"`,
    );
  }
  return {
    stream: `ONCE_${clusterName}_JOURNAL`,
    subject: `once.${clusterName}.journal`,
    bucket: `ONCE_${clusterName}_CLUSTER`,
  };
}
