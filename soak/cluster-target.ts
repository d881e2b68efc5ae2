import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { OnceCluster, TcpProxy, freePorts } from '@once/testing';
import { type AcknowledgementWatch } from './acknowledgement-watch';
import { ClusterChaos } from './cluster-chaos';
import { type SnapshotRead, compareReplicas, readNewestSnapshot } from './replica-comparison';
import { type SeededRandom } from './seeded-random';
import { type SoakOptions } from './soak-options';
import {
  type ServiceAddress,
  type SoakTarget,
  type TargetRun,
  type TargetVerification,
} from './soak-target';
import { stopAndVerifyInOrder, writeLogFiles } from './target-processes';

/** NATS servers (one JetStream cluster, the stream replicated on each) and once nodes. */
export const CLUSTER_NATS_SERVERS = 3;
export const CLUSTER_NODES = 3;
/** How long the nodes may take to agree on one commit op once the load is over. */
const CONVERGENCE_BOUND_MS = 60_000;
/** Consecutive equal answers that make the agreement count: the ops are no longer moving. */
const CONVERGENCE_POLLS = 3;
const CONVERGENCE_POLL_MS = 100;

/**
 * The reference service as a cluster: three NATS servers and three nodes
 * (data in `node1/`… of the run directory), each node behind a TCP proxy of
 * its own. Each node advertises its proxy's address, so the leader that
 * clients learn from PING and from NOT_READY is reached through the proxies
 * too, where the chaos cuts and stalls links; with the nodes' own addresses
 * the clients would add those to their node lists and slip past the chaos.
 */
export class ClusterTarget implements SoakTarget {
  private commits: (number | null)[] = [];
  private converged = false;

  private constructor(
    private readonly cluster: OnceCluster,
    private readonly proxies: readonly TcpProxy[],
    private readonly run: TargetRun,
  ) {}

  static async start(run: TargetRun): Promise<ClusterTarget> {
    const ports = await freePorts(CLUSTER_NODES);
    const proxies = await Promise.all(ports.map((port) => TcpProxy.start({ targetPort: port })));
    try {
      const cluster = await OnceCluster.start({
        natsServers: CLUSTER_NATS_SERVERS,
        nodes: CLUSTER_NODES,
        ports,
        advertise: proxies.map((proxy) => `127.0.0.1:${proxy.port}`),
        dataDirs: ports.map((_, index) => join(run.workDir, `node${index + 1}`)),
        env: run.settings.env,
        service: { entry: run.build.main, readyTimeoutMs: run.settings.readyTimeoutMs },
      });
      return new ClusterTarget(cluster, proxies, run);
    } catch (error) {
      await Promise.all(proxies.map((proxy) => proxy.close()));
      throw error;
    }
  }

  get loadAddress(): ServiceAddress {
    return { nodes: this.proxies.map((proxy) => ({ host: '127.0.0.1', port: proxy.port })) };
  }

  get dataDirs(): readonly string[] {
    return this.cluster.nodes.map((_, index) => join(this.run.workDir, `node${index + 1}`));
  }

  /** Through the proxies as well: they forward faithfully once the chaos is over. */
  get directAddress(): ServiceAddress {
    return this.loadAddress;
  }

  startChaos(
    random: SeededRandom,
    options: SoakOptions,
    watch: AcknowledgementWatch,
  ): ClusterChaos {
    return new ClusterChaos(
      this.cluster,
      this.proxies,
      watch,
      random,
      options.killEveryMs,
      options.faultEveryMs,
    );
  }

  /**
   * Waits until every node answers the same commit op as the leader a few
   * times in a row, and resolves with it (with the leader's last answer when
   * they never agree: the convergence check then fails the run).
   */
  async settle(): Promise<number> {
    const leader = await this.cluster.leader(CONVERGENCE_BOUND_MS);
    const deadlineMs = performance.now() + CONVERGENCE_BOUND_MS;
    let agreed = 0;
    for (;;) {
      const pings = await Promise.all(
        this.cluster.nodes.map((_, index) => this.cluster.ping(index)),
      );
      this.commits = pings.map((ping) => ping?.commit ?? null);
      const leaderCommit = this.commits[leader];
      const same =
        leaderCommit !== null &&
        this.commits.every((commit) => commit === leaderCommit) &&
        pings.every((ping) => ping?.ready === true);
      agreed = same ? agreed + 1 : 0;
      if (agreed >= CONVERGENCE_POLLS || performance.now() > deadlineMs) {
        this.converged = agreed >= CONVERGENCE_POLLS;
        return leaderCommit ?? 0;
      }
      await delay(CONVERGENCE_POLL_MS);
    }
  }

  /**
   * Stops the followers, then the leader (stopped first, it would give a
   * follower the lease and a new term's entries), each gracefully, so each
   * writes a snapshot at its commit op; replays each node's local journal
   * from op 1 with `--verify`, and compares the newest snapshots.
   */
  async stopAndVerify(committedOp: number): Promise<TargetVerification> {
    const pings = await Promise.all(this.cluster.nodes.map((_, index) => this.cluster.ping(index)));
    const order = this.cluster.nodes
      .map((_, index) => index)
      .sort((a, b) => Number(pings[a]?.role === 'leader') - Number(pings[b]?.role === 'leader'));
    const replays = await stopAndVerifyInOrder(
      order.map((index) => ({ name: nodeName(index), service: this.cluster.nodes[index] })),
      this.run.build,
      committedOp,
    );
    const reads: SnapshotRead[] = [];
    for (const [index, node] of this.cluster.nodes.entries()) {
      reads.push(await readNewestSnapshot(nodeName(index), node.dataDir));
    }
    return { replays, cluster: compareReplicas(this.commits, this.converged, reads) };
  }

  async writeLogs(): Promise<void> {
    const { nodes, nats } = this.cluster;
    await writeLogFiles(this.run.workDir, [
      ...nodes.map((node, index) => [nodeName(index), node.logs] as const),
      ...nats.names.map((name, index) => [`nats-${name}`, nats.logs(index)] as const),
    ]);
  }

  /** Kills the nodes and the NATS servers (the nodes' data stays in the run directory). */
  async close(): Promise<void> {
    await Promise.all(this.proxies.map((proxy) => proxy.close()));
    await this.cluster.cleanup();
  }
}

/** The node id OnceCluster gives node `index`. */
function nodeName(index: number): string {
  return `node${index + 1}`;
}
