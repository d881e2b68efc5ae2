export {
  ClusterBucketMismatchError,
  type ClusterBucketOptions,
  openClusterBucket,
} from './cluster-bucket';
export { ClusterLease } from './cluster-lease';
export { type ClusterLogger, SILENT_CLUSTER_LOGGER } from './cluster-logger';
export { type ClusterLeaseOptions, LEASE_DEFAULTS } from './lease-options';
export { type LeaseRole } from './lease-role';
export { nextTerm } from './lease-term';
export {
  type LeaseHolder,
  type LeaseReading,
  type LeaseSeal,
  decodeLeaseValue,
  encodeLeaseValue,
  leaseSeal,
} from './lease-value';
