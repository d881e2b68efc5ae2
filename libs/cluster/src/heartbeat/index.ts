export { ClusterMembers, type LeaveReason, type MembershipChange } from './cluster-members';
export { type HeartbeatOptions } from './heartbeat-options';
export { NodeHeartbeat, type NodeHeartbeatOptions } from './node-heartbeat';
export {
  type AdvertisedCode,
  type NodeInfo,
  HEARTBEAT_KEYS,
  decodeNodeInfo,
  heartbeatSealOf,
  type HeartbeatSeal,
  encodeNodeInfo,
  heartbeatKey,
  nodeIdOfKey,
} from './node-info';
