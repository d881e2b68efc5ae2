import { type ServerConfig } from './server-config';

/**
 * Why this build refuses `config`, or undefined when it can run it. Cluster
 * mode (`ONCE_NATS_SERVERS`) is read and validated, but the service does not
 * run on NATS yet: starting a single node when an operator asked for a
 * cluster would journal on the local disk alone while other nodes believe
 * they share one journal, so the service says so and stops instead.
 */
export function clusterModeRefusal(config: ServerConfig): string | undefined {
  if (config.natsServers === undefined) return undefined;
  return (
    'cluster mode is not available in this build yet: ONCE_NATS_SERVERS (--nats-servers) ' +
    'is set; unset it to run this node on its own'
  );
}
