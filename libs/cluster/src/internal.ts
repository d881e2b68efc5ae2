/**
 * `@once/cluster/internal`: the parts of cluster mode for the sibling
 * packages, the bench and the tests: the cluster keyring, the leader lease,
 * node heartbeats and membership, the journal on JetStream and its message
 * format, the stream follower, the NATS status log. Not covered by semver:
 * it changes with the packages of the same version, which are always
 * installed together.
 *
 * @packageDocumentation
 * @internal
 */
export {
  CLUSTER_KEY_BYTES_MIN,
  ClusterKeyring,
  KeyPurpose,
  type MacPurpose,
  type RingKey,
  parseClusterKeys,
  readClusterKeyFile,
} from './key';
export {
  type ClusterBucketOptions,
  openClusterBucket,
  ClusterLease,
  type ClusterLogger,
  SILENT_CLUSTER_LOGGER,
  type ClusterLeaseOptions,
  LEASE_DEFAULTS,
  type LeaseRole,
  nextTerm,
  type LeaseHolder,
  type LeaseReading,
  type LeaseSeal,
  decodeLeaseValue,
  encodeLeaseValue,
  leaseSeal,
} from './lease';
export {
  ClusterMembers,
  type LeaveReason,
  type MembershipChange,
  type HeartbeatOptions,
  NodeHeartbeat,
  type NodeHeartbeatOptions,
  type AdvertisedCode,
  type NodeInfo,
  HEARTBEAT_KEYS,
  decodeNodeInfo,
  heartbeatSealOf,
  type HeartbeatSeal,
  encodeNodeInfo,
  heartbeatKey,
  nodeIdOfKey,
} from './heartbeat';
export {
  JetStreamJournal,
  type StreamJournalPort,
  clusterConfigBucket,
  JournalHeader,
  MESSAGE_FORMAT,
  type StoredEntries,
  decodeGroupMessage,
  encodeGroupMessage,
  GROUP_MAC_HEADER,
  GroupAuthenticator,
  type GroupPosition,
} from './journal';
export {
  type FollowedStream,
  type LocalCopy,
  StreamFollower,
  type StreamFollowerOptions,
} from './follower';
export { ClusterJournal, ClusterNode, LeaderTerm, natsConnectError } from './node';
export {
  refusesCredentials,
  NatsStatusLog,
  type NatsStatusLine,
  type NatsStatusLogOptions,
  describeNatsStatus,
} from './connection';
