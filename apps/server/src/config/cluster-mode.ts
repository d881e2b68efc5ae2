import { type OnceClusterOptions } from '@once/framework';
import { type ServerConfig } from './server-config';

/**
 * The cluster `config` names, or undefined for a single node: cluster mode
 * is on exactly when `ONCE_NATS_SERVERS` is set (the settings check that
 * `ONCE_NODE_ID` comes with it).
 */
export function clusterOptionsOf(config: ServerConfig): OnceClusterOptions | undefined {
  if (config.natsServers === undefined || config.nodeId === undefined) return undefined;
  return {
    natsServers: config.natsServers,
    nodeId: config.nodeId,
    clusterName: config.clusterName,
    clusterKeyFile: config.clusterKeyFile,
    unsignedThroughSeq: config.clusterUnsignedThroughSeq,
    advertise: config.advertise ?? null,
    replicas: config.clusterReplicas,
  };
}
