/**
 * The public API of `@once/cluster`: a cluster node and its options, the
 * NATS connection's security settings, the names of a cluster's streams and
 * buckets, and the errors (each with its stable `code`) a cluster node stops
 * or refuses with. The journal on JetStream, the lease, heartbeats and the
 * follower are for the sibling packages and the tests:
 * `@once/cluster/internal`.
 *
 * @packageDocumentation
 * @public
 */
export { type ClusterNames, clusterNames } from './cluster-names';
export { ClusterKeyError, type ClusterKeyProblem } from './key';
export { ClusterBucketMismatchError } from './lease';
export {
  ClusterConfigCorruptionError,
  JournalFencedError,
  JournalGroupUnverifiedError,
  type JetStreamJournalOptions,
  JournalStreamMismatchError,
} from './journal';
export { LocalTailDivergedError } from './follower';
export {
  type ClusterNodeOptions,
  type ClusterModeOptions,
  clusterNode,
  NotLeaderError,
  NatsUnreachableError,
} from './node';
export {
  type NatsSecurityOptions,
  type NatsTlsOptions,
  type NatsSecuritySettings,
  readNatsSecurity,
  type NatsConnectPlan,
  natsConnectPlan,
  NatsSecurityError,
  NatsAuthFailedError,
} from './connection';
