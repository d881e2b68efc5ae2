import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { measurePeer, type PeerRun } from './durable-peers';
import { HttpDepositPeerServer } from './http-deposit-peer-server';
import { type HttpPeerKind } from './http-deposit-peer.module';
import { OnceService } from './once-service';
import { RedisServerProcess } from './redis-server-process';

/**
 * The HTTP peers, each named by what serves `POST /ledger/deposit`: `once`
 * (the reference service's ledger HTTP API, `@Idempotent()` routes on its
 * journal), `node-idempotency` (NestJS + `@node-idempotency/nestjs` over
 * Redis) and `plain` (NestJS, not idempotent: the floor).
 */
export type HttpPeerName = 'once' | HttpPeerKind;

/** The HTTP peers measured, in the order of the figures (odd runs measure them in reverse). */
export const HTTP_PEER_NAMES: readonly HttpPeerName[] = ['once', 'node-idempotency', 'plain'];

/** The user once's HTTP load authenticates as: the administrator of a new data directory. */
const ONCE_HTTP_USER = 'admin';

/** What the JSON records of the HTTP peers besides their runs. */
export interface HttpPeersReport {
  /** `redis-server --version` of the Redis holding their keys and balances. */
  readonly redisVersion: string;
  readonly names: readonly HttpPeerName[];
}

/** A running HTTP peer, whatever serves it. */
interface HttpPeerEndpoint {
  readonly port: number;
  /** More load-generator flags its load needs (auth, accounts, the OK status). */
  readonly loadArgs: readonly string[];
  stop(): Promise<void>;
}

/**
 * The reference service with its ledger HTTP API on (`ONCE_HTTP_PORT=0`), on a
 * data directory of its own under the work directory, started as the once
 * figure's is (ONCE_SNAPSHOT_EVERY_OPS=0, defaults otherwise). Its load
 * authenticates as `admin` (HTTP basic auth, the password the bench gave the
 * service), opens each connection's account first (`POST /ledger/open`), and
 * counts a deposit OK when answered 200. SIGKILLed at the end, as every once
 * service of the bench (a graceful stop would write a snapshot).
 */
async function startOnceHttp(context: BenchContext): Promise<HttpPeerEndpoint> {
  const service = await OnceService.start({
    build: context.build,
    dataDir: join(context.workDir, 'http-peers', 'once', 'data'),
    adminPassword: context.adminPassword,
    snapshotEveryOps: 0,
    httpPort: 0,
  });
  return {
    port: service.httpPort!,
    loadArgs: [
      '--basic-auth-user',
      ONCE_HTTP_USER,
      '--open-path',
      '/ledger/open',
      '--ok-status',
      '200',
    ],
    stop: () => service.crash(),
  };
}

/**
 * The HTTP peers of the single-node bench, started once per invocation and
 * measured in every throughput run like the durable peers: the once service
 * with its HTTP API on, a `redis-server` of their own (AOF fsynced on every
 * write) on a directory under the work directory, and one NestJS (Express)
 * peer of each kind on it. The load is `http-deposit`: `--connections`
 * keep-alive connections, one request in flight each, a new
 * `Idempotency-Key` per request.
 */
export class HttpPeers {
  private constructor(
    private readonly redis: RedisServerProcess,
    private readonly peers: ReadonlyMap<HttpPeerName, HttpPeerEndpoint>,
  ) {}

  static async start(context: BenchContext): Promise<HttpPeers> {
    const redis = await RedisServerProcess.start(join(context.workDir, 'http-peers', 'redis'));
    const peers = new Map<HttpPeerName, HttpPeerEndpoint>();
    try {
      for (const name of HTTP_PEER_NAMES) {
        peers.set(
          name,
          name === 'once'
            ? await startOnceHttp(context)
            : await peerEndpoint(context, name, redis.port),
        );
      }
    } catch (error) {
      await new HttpPeers(redis, peers).stop(); // those that started, then their Redis
      throw error;
    }
    context.log(`HTTP peers: ${HTTP_PEER_NAMES.join(', ')}; ${redis.version}`);
    return new HttpPeers(redis, peers);
  }

  /**
   * Every peer's closed loop, then its open loop at half that throughput;
   * run `index` odd measures them in reverse order, so that none always goes
   * first.
   */
  async measureAll(context: BenchContext, index: number): Promise<Record<HttpPeerName, PeerRun>> {
    const measured = new Map<HttpPeerName, PeerRun>();
    const order = index % 2 === 1 ? [...HTTP_PEER_NAMES].reverse() : HTTP_PEER_NAMES;
    for (const name of order) measured.set(name, await this.measure(name, context));
    // Keyed in the figures' order whatever the order of measurement.
    return Object.fromEntries(HTTP_PEER_NAMES.map((name) => [name, measured.get(name)!])) as Record<
      HttpPeerName,
      PeerRun
    >;
  }

  /** One peer's closed loop, then its open loop at half that throughput. */
  measure(name: HttpPeerName, context: BenchContext): Promise<PeerRun> {
    const { port, loadArgs } = this.peers.get(name)!;
    return measurePeer('http-deposit', port, `HTTP ${name}`, context, loadArgs);
  }

  report(): HttpPeersReport {
    return { redisVersion: this.redis.version, names: HTTP_PEER_NAMES };
  }

  /** Stops the peers, then their Redis; every one, whatever fails. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.peers.values()].map((peer) => peer.stop()));
    await this.redis.stop();
  }
}

/** A NestJS HTTP peer of `kind` on the peers' Redis; its load is the default http-deposit. */
async function peerEndpoint(
  context: BenchContext,
  kind: HttpPeerKind,
  redisPort: number,
): Promise<HttpPeerEndpoint> {
  const peer = await HttpDepositPeerServer.start(context.build, kind, redisPort);
  return { port: peer.port, loadArgs: [], stop: () => peer.stop() };
}
