export { ClusterJournal } from './cluster-journal';
export { ClusterNode } from './cluster-node';
export { type ClusterNodeOptions } from './cluster-node-options';
export { type ClusterModeOptions, clusterNode } from './cluster-node-factory';
export { LeaderTerm } from './leader-term';
export { NotLeaderError } from './not-leader.error';
export { NatsUnreachableError } from './nats-unreachable.error';
export { natsConnectError } from './nats-connect-error';
