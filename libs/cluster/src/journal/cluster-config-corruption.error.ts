/**
 * A value in the cluster's configuration bucket cannot be what the journal
 * stored there (a secret of the wrong size, settings that are not JSON).
 */
export class ClusterConfigCorruptionError extends Error {
  readonly code = 'CLUSTER_CONFIG_CORRUPT';
  override readonly name = 'ClusterConfigCorruptionError';

  constructor(
    readonly bucket: string,
    readonly key: string,
    reason: string,
  ) {
    super(`key ${key} of bucket ${bucket} is unusable: ${reason}`);
  }
}
