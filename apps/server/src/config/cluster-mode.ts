import {
  type ClusterModeOptions,
  NatsSecurityError,
  clusterNode,
  natsConnectPlan,
  readNatsSecurity,
} from '@once/cluster';
import { type OnceNodeFactory } from '@once/framework';
import { ConfigError, type ServerConfig } from './server-config';

/**
 * The cluster `config` names, or undefined for a single node: cluster mode
 * is on exactly when `ONCE_NATS_SERVERS` is set (the settings check that
 * `ONCE_NODE_ID` comes with it). The NATS secret and TLS files are read
 * here and the settings checked together (one way to authenticate, a
 * password with its user…), so a missing file or a misfit is an invalid
 * setting (exit 2) naming the setting, never the secret.
 */
export function clusterOptionsOf(config: ServerConfig): ClusterModeOptions | undefined {
  if (config.natsServers === undefined || config.nodeId === undefined) return undefined;
  let natsSecurity;
  try {
    natsSecurity = readNatsSecurity(config);
    natsConnectPlan(config.natsServers, natsSecurity);
  } catch (error) {
    if (error instanceof NatsSecurityError) throw new ConfigError(error.message);
    throw error;
  }
  return {
    natsServers: config.natsServers,
    natsSecurity,
    natsConnectTimeoutMs: config.natsConnectTimeoutMs,
    nodeId: config.nodeId,
    clusterName: config.clusterName,
    clusterKeyFile: config.clusterKeyFile,
    unsignedThroughSeq: config.clusterUnsignedThroughSeq,
    advertise: config.advertise ?? null,
    replicas: config.clusterReplicas,
  };
}

/**
 * The node the service runs: a cluster's node when the settings turn
 * cluster mode on (see {@link clusterOptionsOf}), else undefined for
 * `OnceModule`'s default, the single LevelDB node. The one place the
 * reference service chooses its mode.
 */
export function nodeFactoryOf(config: ServerConfig): OnceNodeFactory | undefined {
  const cluster = clusterOptionsOf(config);
  return cluster ? clusterNode(cluster) : undefined;
}
