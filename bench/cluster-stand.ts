import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePorts } from '@once/testing';
import { type BenchContext } from './bench-context';
import { type NatsServers } from './nats-servers';
import { OnceService, type OnceServiceOptions } from './once-service';
import { type PingReply, pingOnce } from './ping-client';
import { sleep } from './sleep';

/** How a {@link ClusterStand} is made. */
export interface ClusterStandOptions {
  /** `ONCE_CLUSTER_NAME`: each stand its own stream and buckets on the same NATS servers. */
  readonly clusterName: string;
  /** Once nodes. */
  readonly nodes: number;
  /** ONCE_SNAPSHOT_EVERY_OPS of every node; the service's default when absent. */
  readonly snapshotEveryOps?: number;
}

export const CLUSTER_HOST = '127.0.0.1';
const PING_TIMEOUT_MS = 2000;
const LEADER_POLL_MS = 20;
const LEADER_TIMEOUT_MS = 60_000;

/**
 * Once nodes in cluster mode on the bench's NATS servers: the reference
 * service of the build snapshot, one data directory and one fixed port each
 * (a node advertises `127.0.0.1:<port>`, so a restarted node keeps it),
 * ids `node1`…, every other setting at its default. The first node creates
 * the stream; the others start after it.
 */
export class ClusterStand {
  private constructor(
    private readonly context: BenchContext,
    private readonly options: ClusterStandOptions,
    private readonly nats: NatsServers,
    private readonly ports: readonly number[],
    private readonly running: (OnceService | undefined)[],
  ) {}

  static async start(
    context: BenchContext,
    nats: NatsServers,
    options: ClusterStandOptions,
  ): Promise<ClusterStand> {
    const ports = await freePorts(options.nodes);
    // The cluster key every node is given, as an operator would give it.
    await mkdir(join(context.workDir, options.clusterName), { recursive: true });
    await writeFile(
      join(context.workDir, options.clusterName, 'cluster.key'),
      `${randomBytes(32).toString('hex')}\n`,
      { mode: 0o600 },
    );
    const stand = new ClusterStand(context, options, nats, ports, []);
    try {
      for (let index = 0; index < options.nodes; index++) await stand.restart(index);
    } catch (error) {
      await stand.stop();
      throw error;
    }
    return stand;
  }

  get size(): number {
    return this.ports.length;
  }

  port(index: number): number {
    return this.ports[index];
  }

  /** The running process of node `index`; throws when it is down. */
  node(index: number): OnceService {
    const node = this.running[index];
    if (!node) throw new Error(`node${index + 1} is not running`);
    return node;
  }

  /** The cluster key file of this stand's nodes (`ONCE_CLUSTER_KEY_FILE`). */
  private get keyFile(): string {
    return join(this.context.workDir, this.options.clusterName, 'cluster.key');
  }

  /** How node `index` is started: the same every time, so it comes back as itself. */
  nodeOptions(index: number): OnceServiceOptions {
    return {
      build: this.context.build,
      dataDir: join(this.context.workDir, this.options.clusterName, `node${index + 1}`, 'data'),
      adminPassword: this.context.adminPassword,
      snapshotEveryOps: this.options.snapshotEveryOps,
      port: this.ports[index],
      env: {
        ONCE_NATS_SERVERS: this.nats.urls.join(','),
        ONCE_CLUSTER_KEY_FILE: this.keyFile,
        ONCE_CLUSTER_NAME: this.options.clusterName,
        ONCE_NODE_ID: `node${index + 1}`,
        ONCE_ADVERTISE: `${CLUSTER_HOST}:${this.ports[index]}`,
      },
    };
  }

  /**
   * Starts node `index` (again) on its directory and port; resolves once its
   * PING passes `readyWhen` (default: ready), with the process.
   */
  async restart(index: number, readyWhen?: OnceServiceOptions['readyWhen']): Promise<OnceService> {
    await this.kill(index);
    const node = await OnceService.start({ ...this.nodeOptions(index), readyWhen });
    this.running[index] = node;
    return node;
  }

  /** SIGKILL of node `index` (no stop snapshot, no lease release). */
  async kill(index: number): Promise<void> {
    const node = this.running[index];
    this.running[index] = undefined;
    await node?.crash();
  }

  /** PING of node `index`, or undefined when it is down or silent. */
  ping(index: number): Promise<PingReply | undefined> {
    return pingOnce(CLUSTER_HOST, this.ports[index], PING_TIMEOUT_MS);
  }

  /**
   * The index of the leader once exactly one running node says it leads and
   * every other running node names it.
   */
  async leader(): Promise<number> {
    const deadlineMs = performance.now() + LEADER_TIMEOUT_MS;
    let seen: (PingReply | undefined)[] = [];
    for (;;) {
      seen = await Promise.all(this.ports.map((_, index) => this.pingRunning(index)));
      const leaders = seen.flatMap((reply, index) => (reply?.role === 'leader' ? [index] : []));
      if (leaders.length === 1) {
        const address = `${CLUSTER_HOST}:${this.ports[leaders[0]]}`;
        const agreed = seen.every(
          (reply, index) =>
            !this.running[index] || reply?.role === 'leader' || reply?.leader === address,
        );
        if (agreed) return leaders[0];
      }
      if (performance.now() > deadlineMs) {
        throw new Error(`no leader every node names; last PINGs: ${JSON.stringify(seen)}`);
      }
      await sleep(LEADER_POLL_MS);
    }
  }

  /** SIGKILLs every node. */
  async stop(): Promise<void> {
    await Promise.all(this.ports.map((_, index) => this.kill(index)));
  }

  private pingRunning(index: number): Promise<PingReply | undefined> {
    return this.running[index] ? this.ping(index) : Promise.resolve(undefined);
  }
}
