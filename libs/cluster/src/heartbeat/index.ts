export { ClusterMembers, type LeaveReason, type MembershipChange } from './cluster-members';
export { type HeartbeatOptions } from './heartbeat-options';
export { NodeHeartbeat, type NodeHeartbeatOptions } from './node-heartbeat';
export { type NodeInfo, decodeNodeInfo, encodeNodeInfo, heartbeatKey } from './node-info';
