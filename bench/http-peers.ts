import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { type PeerRun } from './durable-peers';
import { HttpDepositPeerServer } from './http-deposit-peer-server';
import { type HttpPeerKind } from './http-deposit-peer.module';
import { runLoad } from './load-runner';
import { RedisServerProcess } from './redis-server-process';

/**
 * The HTTP peers, each named by what serves `POST /ledger/deposit`:
 * `node-idempotency` (NestJS + `@node-idempotency/nestjs` over Redis) and
 * `plain` (NestJS, not idempotent: the floor). A once HTTP peer joins as
 * another name: a server with a port, measured by the same loads.
 */
export type HttpPeerName = HttpPeerKind;

/** The HTTP peers measured, in the order of the figures. */
export const HTTP_PEER_NAMES: readonly HttpPeerName[] = ['node-idempotency', 'plain'];

/** What the JSON records of the HTTP peers besides their runs. */
export interface HttpPeersReport {
  /** `redis-server --version` of the Redis holding their keys and balances. */
  readonly redisVersion: string;
  readonly names: readonly HttpPeerName[];
}

/** A running HTTP peer, whatever serves it. */
interface HttpPeerEndpoint {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * The HTTP peers of the single-node bench, started once per invocation and
 * measured in every throughput run like the durable peers: a `redis-server`
 * of their own (AOF fsynced on every write) on a directory under the work
 * directory, and one NestJS (Express) peer of each kind on it. The load is
 * `http-deposit`: `--connections` keep-alive connections, one request in
 * flight each, a new `Idempotency-Key` per request.
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
        peers.set(name, await HttpDepositPeerServer.start(context.build, name, redis.port));
      }
    } catch (error) {
      await Promise.allSettled([...peers.values()].map((peer) => peer.stop()));
      await redis.stop();
      throw error;
    }
    context.log(`HTTP peers: ${HTTP_PEER_NAMES.join(', ')}; ${redis.version}`);
    return new HttpPeers(redis, peers);
  }

  /** Every peer's closed loop, then its open loop at half that throughput. */
  async measureAll(context: BenchContext): Promise<Record<HttpPeerName, PeerRun>> {
    const runs = {} as Record<HttpPeerName, PeerRun>;
    for (const name of HTTP_PEER_NAMES) runs[name] = await this.measure(name, context);
    return runs;
  }

  /** One peer's closed loop, then its open loop at half that throughput. */
  async measure(name: HttpPeerName, context: BenchContext): Promise<PeerRun> {
    const port = this.peers.get(name)!.port;
    const closed = await runLoad('http-deposit', port, { kind: 'closed' }, context);
    const halfPeak = await runLoad(
      'http-deposit',
      port,
      { kind: 'open', ratePerSecond: closed.requestsPerSecond / 2 },
      context,
    );
    context.log(
      `  HTTP ${name}: ${Math.round(closed.requestsPerSecond)} req/s; at half: p50 ${halfPeak.latency.p50Ms.toFixed(2)} ms, p99 ${halfPeak.latency.p99Ms.toFixed(2)} ms`,
    );
    return { closed, halfPeak };
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
