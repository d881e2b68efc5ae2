/** Why a node has no usable cluster key. */
export type ClusterKeyProblem =
  /** Cluster mode without `ONCE_CLUSTER_KEY_FILE` (nor keys given in code). */
  | 'CLUSTER_KEY_MISSING'
  /** The key file could not be read (absent, a directory, no permission). */
  | 'CLUSTER_KEY_UNREADABLE'
  /** The file holds no key, a line that is not hex, or a key under the minimum. */
  | 'CLUSTER_KEY_INVALID';

/**
 * The cluster key cannot be had: a cluster node does not start without it,
 * since it trusts nothing in NATS that the key does not authenticate. The
 * message names the file and what is wrong, never a byte of the key.
 */
export class ClusterKeyError extends Error {
  constructor(
    readonly code: ClusterKeyProblem,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ClusterKeyError';
  }
}
