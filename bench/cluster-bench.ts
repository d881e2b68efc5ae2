import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { type BenchOptions } from './bench-options';
import {
  type ClusterFigures,
  type ClusterMeasurements,
  clusterFiguresTable,
  computeClusterFigures,
} from './cluster-figures';
import { measureFollowerRestart } from './cluster-restart-run';
import { ClusterStand } from './cluster-stand';
import { type ClusterThroughputRun, measureClusterRun } from './cluster-throughput-run';
import { type EnvironmentInfo } from './environment-info';
import { type FailoverSample, measureFailovers } from './failover-run';
import { NatsServers } from './nats-servers';

/** The JSON file of `--cluster`: the figures at top level, then what they come from. */
export interface ClusterBenchDocument extends ClusterFigures, ClusterMeasurements {
  readonly environment: EnvironmentInfo & { readonly natsServer: string };
  readonly settings: Omit<BenchOptions, 'out'>;
  readonly cluster: { readonly natsServers: number; readonly nodes: number };
}

/** NATS servers (JetStream, replicas = servers) and once nodes of every cluster the bench starts. */
const NATS_SERVERS = 3;
const NODES = 3;
/** The cluster of the throughput and failover figures. */
const CLUSTER_NAME = 'bench';

/**
 * `--cluster`: three routed NATS servers and three once nodes. On one
 * cluster, the throughput runs (leader and bare JetStream, back to back),
 * then the leader kills; then, on a cluster of its own filled to
 * `restartOps`, the follower restarts. See bench/README.md for each figure.
 */
export async function runClusterBench(
  context: BenchContext,
  environment: EnvironmentInfo,
): Promise<{ document: ClusterBenchDocument; table: string }> {
  const { options, log } = context;
  const nats = await NatsServers.start(join(context.workDir, 'nats'), NATS_SERVERS);
  let measured: ClusterMeasurements;
  try {
    log(`${nats.version}: ${NATS_SERVERS} servers; ${NODES} once nodes`);
    const stand = await ClusterStand.start(context, nats, {
      clusterName: CLUSTER_NAME,
      nodes: NODES,
    });
    const runs: ClusterThroughputRun[] = [];
    let failovers: FailoverSample[];
    try {
      for (let index = 0; index < options.runs; index++) {
        log(`run ${index + 1}/${options.runs}`);
        runs.push(await measureClusterRun(context, nats, stand, CLUSTER_NAME, index));
      }
      log(`failovers: ${options.failoverKills} leader kills`);
      failovers = await measureFailovers(context, stand);
    } finally {
      await stand.stop();
    }
    log(`follower restart at ${options.restartOps} ops`);
    const followerRestart = await measureFollowerRestart(context, nats);
    measured = { runs, failovers, followerRestart };
  } finally {
    await nats.stop();
  }
  const figures = computeClusterFigures(measured);
  const { out: _out, ...settings } = options;
  return {
    document: {
      ...figures,
      environment: { ...environment, natsServer: nats.version },
      settings,
      cluster: { natsServers: NATS_SERVERS, nodes: NODES },
      ...measured,
    },
    table: clusterFiguresTable(figures, measured),
  };
}
