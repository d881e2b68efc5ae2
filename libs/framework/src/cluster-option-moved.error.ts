/**
 * `OnceModule` was given the `cluster` option, which is gone: cluster mode is
 * a node factory from `@once/cluster` given as the `node` option, so that
 * `@once/framework` (and every single-node application) carries no NATS
 * client.
 */
export class ClusterOptionMovedError extends Error {
  readonly code = 'CLUSTER_OPTION_MOVED';

  constructor() {
    super(
      "OnceModule's `cluster` option was replaced by the `node` option: install @once/cluster and pass " +
        '`node: clusterNode({ natsServers, nodeId, clusterKeyFile, ... })`, clusterNode being the export of @once/cluster, ' +
        'with the same fields the `cluster` option took',
    );
    this.name = 'ClusterOptionMovedError';
  }
}
