import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Operation } from '@once/protocol';
import { eventually } from './eventually';
import { freePorts } from './free-ports';
import { NatsCluster, type NatsClusterAuth, recommendedAccounts } from './nats-cluster';
import { RawClient, bodyJson } from './raw-client';
import { ServiceProcess, type ServiceProcessOptions } from './service-process';
import { TcpProxy } from './tcp-proxy';

/** Options of {@link OnceCluster.start}. */
export interface OnceClusterOptions {
  /** NATS servers (JetStream, clustered). Default 3. */
  readonly natsServers?: number;
  /** The NATS servers' `max_payload`, bytes. Default NATS's (1 MiB). */
  readonly natsMaxPayloadBytes?: number;
  /** Once nodes. Default 3. */
  readonly nodes?: number;
  /** The cluster's name (`ONCE_CLUSTER_NAME`). Default `once`. */
  readonly clusterName?: string;
  /** Copies JetStream keeps of the stream (`ONCE_CLUSTER_REPLICAS`). Default: the NATS server count. */
  readonly replicas?: number;
  /** Environment every node gets (limits, log level). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Settings of one node each, in node order, over `env` (an HTTP port
   * apiece, say). Default: none.
   */
  readonly nodeEnv?: ReadonlyArray<Readonly<Record<string, string>>>;
  /** What each node runs and how it is awaited, as `ServiceProcess` takes it (not `env`, `dataDir`). */
  readonly service?: Omit<ServiceProcessOptions, 'env' | 'dataDir'>;
  /**
   * Each node's port (`ONCE_PORT`), in node order, for a caller that must
   * know them first (a proxy in front of each node). Default: free ports.
   */
  readonly ports?: readonly number[];
  /**
   * What each node advertises (`ONCE_ADVERTISE`, `host:port`), in node order:
   * e.g. a proxy in front of it, so that the leader clients learn from PING is
   * reached through that proxy. Default `127.0.0.1:<port>`.
   */
  readonly advertise?: readonly string[];
  /**
   * Each node's data directory, in node order, kept by `cleanup()` (e.g. in a
   * directory of the caller's, to inspect after a failure). Default: a fresh
   * temporary one per node, removed by `cleanup()`.
   */
  readonly dataDirs?: readonly string[];
  /**
   * Give each node its own {@link TcpProxy} to every NATS server and the
   * proxies' addresses as `ONCE_NATS_SERVERS`, so a test can cut one node
   * off NATS while the others keep their links (see `natsLinks`). Stall the
   * proxies rather than cut them: a NATS client that sees its connection
   * close reconnects to the servers' own addresses, which the servers tell
   * it. Default false.
   */
  readonly proxiedNats?: boolean;
  /**
   * The cluster key file every node is given (`ONCE_CLUSTER_KEY_FILE`).
   * Default: a fresh random key in a temporary file, removed by `cleanup()`
   * (see `keyFile`). `env` may still give a node list another.
   */
  readonly clusterKeyFile?: string;
  /**
   * How the NATS servers authenticate clients; the nodes get the credentials
   * (see `NatsCluster.nodeEnv`). `'accounts'`: the repository's recommended
   * layout (`deploy/nats/once-accounts.conf`), the nodes as user `once` of
   * account ONCE, an outsider as user `app` of account APPS (passwords in
   * `ACCOUNTS_PASSWORDS`). Default: none (anonymous).
   */
  readonly natsAuth?: NatsClusterAuth | 'accounts';
}

/** What one node says of itself in its PING reply. */
export interface NodePing {
  readonly ready: boolean;
  readonly commit: number;
  readonly node: string | null;
  readonly role: 'leader' | 'follower' | 'none';
  readonly leader: string | null;
}

/**
 * A whole cluster on loopback for tests: N `nats-server` processes (see
 * {@link NatsCluster}) and M once nodes as child processes, each on a port
 * chosen before it starts (it advertises `127.0.0.1:<port>`, or what
 * `advertise` says) and its own data directory. Any node or NATS server can
 * be SIGKILLed and restarted on the same port and directory; `cleanup()`
 * kills everything and deletes it.
 */
export class OnceCluster {
  private constructor(
    readonly nats: NatsCluster,
    readonly nodes: ServiceProcess[],
    /** What each node advertises (`host:port`), in node order: the `leader` its PING names. */
    readonly advertised: readonly string[],
    private readonly links: readonly (readonly TcpProxy[])[],
    /** The cluster key file every node was given (`ONCE_CLUSTER_KEY_FILE`). */
    readonly keyFile: string,
    /** The temporary directory of a generated key file, removed by `cleanup()`. */
    private readonly keyDir: string | undefined,
  ) {}

  static async start(options: OnceClusterOptions = {}): Promise<OnceCluster> {
    const count = options.nodes ?? 3;
    for (const [name, list] of Object.entries({
      ports: options.ports,
      advertise: options.advertise,
      dataDirs: options.dataDirs,
      nodeEnv: options.nodeEnv,
    })) {
      if (list !== undefined && list.length !== count) {
        throw new RangeError(`${name} lists ${list.length} nodes, not ${count}`);
      }
    }
    const nats = await NatsCluster.start({
      servers: options.natsServers ?? 3,
      maxPayloadBytes: options.natsMaxPayloadBytes,
      auth: options.natsAuth === 'accounts' ? recommendedAccounts() : options.natsAuth,
    });
    const key = options.clusterKeyFile ? undefined : await writeClusterKeyFile();
    const keyFile = options.clusterKeyFile ?? key!.file;
    const ports = options.ports ?? (await freePorts(count));
    const advertised = ports.map((port, i) => options.advertise?.[i] ?? `127.0.0.1:${port}`);
    const nodes: ServiceProcess[] = [];
    const links: TcpProxy[][] = [];
    try {
      if (options.proxiedNats) {
        for (let i = 0; i < count; i++) links.push(await proxiesTo(nats.urls));
      }
      // One at a time: the first creates the stream and buckets the others find.
      for (let i = 0; i < count; i++) {
        nodes.push(
          await ServiceProcess.start({
            readyTimeoutMs: 60_000,
            ...options.service,
            dataDir: options.dataDirs?.[i],
            env: {
              ONCE_CLUSTER_KEY_FILE: keyFile,
              ...nats.nodeEnv,
              ...options.env,
              ...options.nodeEnv?.[i],
              ONCE_PORT: String(ports[i]),
              ONCE_NATS_SERVERS: (links[i]?.map(natsUrlOf) ?? nats.urls).join(','),
              ONCE_NODE_ID: `node${i + 1}`,
              ONCE_ADVERTISE: advertised[i],
              ONCE_CLUSTER_NAME: options.clusterName ?? 'once',
              ONCE_CLUSTER_REPLICAS: String(options.replicas ?? nats.urls.length),
            },
          }),
        );
      }
    } catch (error) {
      await Promise.allSettled(nodes.map((node) => node.cleanup()));
      await Promise.allSettled(links.flat().map((proxy) => proxy.close()));
      await nats.cleanup();
      if (key) await rm(key.dir, { recursive: true, force: true });
      throw error;
    }
    return new OnceCluster(nats, nodes, advertised, links, keyFile, key?.dir);
  }

  /**
   * Node `index`'s links to the NATS servers, one proxy per server in server
   * order, with `proxiedNats` (else none): `stall()` them all to cut the
   * node off NATS without it noticing a closed connection, `resume()` to heal.
   */
  natsLinks(index: number): readonly TcpProxy[] {
    return this.links[index] ?? [];
  }

  /** Every node's `host:port`, in node order. */
  get addresses(): { host: string; port: number }[] {
    return this.nodes.map((node) => node.address);
  }

  /** Asks node `index` for its PING body; undefined when it does not answer. */
  async ping(index: number): Promise<NodePing | undefined> {
    const node = this.nodes[index];
    if (!node.running) return undefined;
    let client: RawClient | undefined;
    try {
      client = await RawClient.connect(node.port, '127.0.0.1');
      return bodyJson(
        await client.request({ operation: Operation.Ping }, undefined, 2000),
      ) as NodePing;
    } catch {
      return undefined;
    } finally {
      client?.destroy();
    }
  }

  /**
   * The index of the node that says it leads, once exactly one running node
   * does and every other running node names it; waits up to `timeoutMs`.
   */
  async leader(timeoutMs = 30_000): Promise<number> {
    let found = -1;
    let seen: (NodePing | undefined)[] = [];
    await eventually(
      async () => {
        seen = await Promise.all(this.nodes.map((_, index) => this.ping(index)));
        const leaders = seen.flatMap((ping, index) => (ping?.role === 'leader' ? [index] : []));
        if (leaders.length !== 1) return false;
        const address = this.advertised[leaders[0]];
        found = leaders[0];
        return seen.every((ping) => !ping || ping.role === 'leader' || ping.leader === address);
      },
      'one leader named by every running node',
      timeoutMs,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last PING bodies: ${JSON.stringify(seen)}`);
    });
    return found;
  }

  /** Waits until every running node applied op `op` or later. */
  async appliedEverywhere(op: number, timeoutMs = 30_000): Promise<void> {
    await eventually(
      async () => {
        for (const [index, node] of this.nodes.entries()) {
          if (!node.running) continue;
          const ping = await this.ping(index);
          if (!ping || ping.commit < op) return false;
        }
        return true;
      },
      `every running node at op ${op}`,
      timeoutMs,
    );
  }

  /** SIGKILL of node `index`. */
  kill(index: number): Promise<void> {
    return this.nodes[index].crash();
  }

  /** Starts node `index` again on its port and data directory; resolves once it serves PING. */
  async restart(index: number): Promise<void> {
    await this.nodes[index].restart();
  }

  /** Kills every node and NATS server and deletes their directories (not the `dataDirs` given). */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.nodes.map((node) => node.cleanup()));
    await Promise.allSettled(this.links.flat().map((proxy) => proxy.close()));
    await this.nats.cleanup();
    if (this.keyDir) await rm(this.keyDir, { recursive: true, force: true });
  }
}

/**
 * A fresh cluster key (32 random bytes, hex, as `openssl rand -hex 32` makes
 * it) in a file of a new temporary directory.
 */
export async function writeClusterKeyFile(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'once-cluster-key-'));
  const file = join(dir, 'cluster.key');
  await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return { dir, file };
}

/** One proxy to each of `urls` (`nats://127.0.0.1:<port>`), in order. */
async function proxiesTo(urls: readonly string[]): Promise<TcpProxy[]> {
  const proxies: TcpProxy[] = [];
  for (const url of urls) {
    proxies.push(await TcpProxy.start({ targetPort: Number(new URL(url).port) }));
  }
  return proxies;
}

function natsUrlOf(proxy: TcpProxy): string {
  return `nats://127.0.0.1:${proxy.port}`;
}
