export { type ClusterNames, clusterNames } from './cluster-names';
export * from './key';
export * from './lease';
export * from './heartbeat';
export * from './journal';
export * from './follower';
export * from './node';
export * from './connection';
