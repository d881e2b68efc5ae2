export { type ClusterNames, clusterNames } from './cluster-names';
