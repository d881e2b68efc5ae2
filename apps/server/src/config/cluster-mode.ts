import { NatsSecurityError, natsConnectPlan, readNatsSecurity } from '@once/cluster';
import { type OnceClusterOptions } from '@once/framework';
import { ConfigError, type ServerConfig } from './server-config';

/**
 * The cluster `config` names, or undefined for a single node: cluster mode
 * is on exactly when `ONCE_NATS_SERVERS` is set (the settings check that
 * `ONCE_NODE_ID` comes with it). The NATS secret and TLS files are read
 * here and the settings checked together (one way to authenticate, a
 * password with its user…), so a missing file or a misfit is an invalid
 * setting (exit 2) naming the setting, never the secret.
 */
export function clusterOptionsOf(config: ServerConfig): OnceClusterOptions | undefined {
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
