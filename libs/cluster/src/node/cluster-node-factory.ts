import { type OnceNodeFactory, type OnceNodeOptions } from '@once/engine/internal';
import { ClusterNode } from './cluster-node';
import { type ClusterNodeOptions } from './cluster-node-options';

/**
 * Where a node's cluster is and how it joins it: `ClusterNodeOptions`
 * without the node's own options (data directory, handlers, states, limits),
 * which the application's `OnceModule` options give.
 */
export type ClusterModeOptions = Omit<ClusterNodeOptions, keyof OnceNodeOptions>;

/**
 * Cluster mode, for `OnceModule`'s `node` option: the journal on the
 * cluster's NATS JetStream stream, the data directory holding the node's
 * applied copy and its snapshots.
 *
 * ```ts
 * OnceModule.forRoot({
 *   dataDir: './data',
 *   node: clusterNode({ natsServers: ['nats://n1:4222'], nodeId: 'a', clusterKeyFile: 'cluster.key' }),
 * })
 * ```
 *
 * Only the application that imports this package loads the NATS client; a
 * single node (the default) never does.
 */
export function clusterNode(options: ClusterModeOptions): OnceNodeFactory {
  return (node) => ClusterNode.open({ ...node, ...options });
}
