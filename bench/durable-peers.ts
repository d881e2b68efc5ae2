import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { DepositPeerServer } from './deposit-peer-server';
import { type LoadReport } from './load-report';
import { runLoad } from './load-runner';
import { type PgDepositVariant } from './pg-deposit-store';
import { type ExactlyOnceCheck, checkExactlyOnce } from './peer-exactly-once';
import { PostgresServerProcess } from './postgres-server-process';
import { RedisServerProcess } from './redis-server-process';

/** The two durable peers: NestJS TCP + Redis, NestJS TCP + PostgreSQL. */
export type PeerName = 'redis' | 'pg';

/** One peer's share of a throughput run. */
export interface PeerRun {
  /** Closed loop of `deposit`s, a new key each, same shape as once's. */
  readonly closed: LoadReport;
  /** Open loop at half of `closed`'s throughput, same peer. */
  readonly halfPeak: LoadReport;
}

/** What the JSON records of the peers besides their runs. */
export interface DurablePeersReport {
  readonly redisVersion: string;
  readonly postgresVersion: string;
  /** How the PostgreSQL peer runs a deposit (ONCE_BENCH_PG_VARIANT). */
  readonly pgVariant: PgDepositVariant;
  /** The exactly-once check of each peer, after the throughput runs. */
  readonly checks?: Readonly<Record<PeerName, ExactlyOnceCheck>>;
}

/**
 * A peer's closed loop of `target` load on `port`, then its open loop at half
 * that throughput, logged under `label`.
 */
export async function measurePeer(
  target: LoadReport['target'],
  port: number,
  label: string,
  context: BenchContext,
  loadArgs: readonly string[] = [],
): Promise<PeerRun> {
  const closed = await runLoad(target, port, { kind: 'closed' }, context, loadArgs);
  const halfPeak = await runLoad(
    target,
    port,
    { kind: 'open', ratePerSecond: closed.requestsPerSecond / 2 },
    context,
    loadArgs,
  );
  context.log(
    `  ${label}: ${Math.round(closed.requestsPerSecond)} req/s; at half: p50 ${halfPeak.latency.p50Ms.toFixed(2)} ms, p99 ${halfPeak.latency.p99Ms.toFixed(2)} ms`,
  );
  return { closed, halfPeak };
}

/**
 * The plpgsql function: one round trip per deposit instead of five; it was
 * the faster of the two on the machine the figures were measured on.
 */
const DEFAULT_PG_VARIANT: PgDepositVariant = 'function';
/** Keys each peer's exactly-once check sends (each three times). */
const CHECK_KEYS = 1000;

/**
 * The durable peers of the single-node bench, started once per invocation
 * and measured in every throughput run: a `redis-server` and a PostgreSQL 15
 * server on directories under the work directory, and a NestJS TCP peer
 * (nest-deposit-peer.ts) on each. {@link stop} ends all four; they are
 * tracked children, so a failing bench kills them too.
 */
export class DurablePeers {
  private readonly peers: Readonly<Record<PeerName, DepositPeerServer>>;

  private constructor(
    private readonly redis: RedisServerProcess,
    private readonly postgres: PostgresServerProcess,
    redisPeer: DepositPeerServer,
    pgPeer: DepositPeerServer,
    private readonly pgVariant: PgDepositVariant,
  ) {
    this.peers = { redis: redisPeer, pg: pgPeer };
  }

  static async start(context: BenchContext): Promise<DurablePeers> {
    const pgVariant = pgVariantFromEnv();
    const root = join(context.workDir, 'peers');
    const started: Stoppable[] = [];
    try {
      // Side by side: initdb alone takes seconds, and nothing is measured yet.
      const [redis, postgres] = await startAll(started, [
        RedisServerProcess.start(join(root, 'redis')),
        PostgresServerProcess.start(join(root, 'pg'), context.workDir),
      ] as const);
      const [redisPeer, pgPeer] = await startAll(started, [
        DepositPeerServer.start(context.build, { kind: 'redis', port: redis.port }),
        DepositPeerServer.start(context.build, {
          kind: 'pg',
          port: postgres.port,
          variant: pgVariant,
        }),
      ] as const);
      context.log(`durable peers: ${redis.version}; ${postgres.version} (${pgVariant})`);
      return new DurablePeers(redis, postgres, redisPeer, pgPeer, pgVariant);
    } catch (error) {
      await Promise.allSettled(started.reverse().map((server) => server.stop()));
      throw error;
    }
  }

  /** The peer's closed loop, then its open loop at half that throughput. */
  measure(name: PeerName, context: BenchContext): Promise<PeerRun> {
    return measurePeer('nest-deposit', this.peers[name].port, `${name} peer`, context);
  }

  /** Checks both peers' exactly-once; throws if either moves a balance twice. */
  async checkExactlyOnce(context: BenchContext): Promise<Record<PeerName, ExactlyOnceCheck>> {
    const [redis, pg] = await Promise.all([
      checkExactlyOnce('redis', this.peers.redis.port, CHECK_KEYS),
      checkExactlyOnce('pg', this.peers.pg.port, CHECK_KEYS),
    ]);
    context.log(
      `durable peers exactly-once: ${CHECK_KEYS} keys sent 3 times each, balances moved once`,
    );
    return { redis, pg };
  }

  report(checks?: Record<PeerName, ExactlyOnceCheck>): DurablePeersReport {
    return {
      redisVersion: this.redis.version,
      postgresVersion: this.postgres.version,
      pgVariant: this.pgVariant,
      ...(checks && { checks }),
    };
  }

  /** Stops the peers, then their servers; every one, whatever fails. */
  async stop(): Promise<void> {
    await Promise.allSettled([this.peers.redis.stop(), this.peers.pg.stop()]);
    await Promise.allSettled([this.redis.stop(), this.postgres.stop()]);
  }
}

interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Awaits every start, adds each server that started to `started` (so that
 * the caller stops it), then rethrows the first failure, if any.
 */
async function startAll<T extends readonly Promise<Stoppable>[]>(
  started: Stoppable[],
  starts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(starts);
  for (const result of settled) if (result.status === 'fulfilled') started.push(result.value);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<Stoppable>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

function pgVariantFromEnv(): PgDepositVariant {
  const variant = process.env.ONCE_BENCH_PG_VARIANT || DEFAULT_PG_VARIANT;
  if (variant !== 'function' && variant !== 'transaction') {
    throw new Error(`ONCE_BENCH_PG_VARIANT must be function or transaction: ${variant}`);
  }
  return variant;
}
