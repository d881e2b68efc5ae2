import { type NodeAddress, OnceClient, type OnceClientEvent } from '@once/sdk';
import { type OnceCluster, eventually } from '@once/testing';
import { DepositRun } from '../sdk/support/deposit-run';
import { ADMIN_PASSWORD, accountName } from './wire';

/** An SDK client of the whole cluster (`nodes`), with every event it reported since it connected. */
export interface ClusterClient {
  readonly client: OnceClient;
  readonly events: OnceClientEvent[];
}

/**
 * Connects an admin client to every node of `cluster`. It pipelines up to
 * the node's ring (8), retries quickly, and gives a request a minute before
 * failing it: a failover takes seconds, a hang must still fail.
 */
export async function clusterClient(cluster: OnceCluster): Promise<ClusterClient> {
  const client = await OnceClient.connect({
    nodes: cluster.addresses,
    username: 'admin',
    password: ADMIN_PASSWORD,
    inFlightMax: 8,
    requestTimeoutMs: 60_000,
    reconnect: { initialDelayMs: 20, delayMsMax: 500 },
  });
  const events: OnceClientEvent[] = [];
  client.events$.subscribe((event) => events.push(event));
  return { client, events };
}

/** The nodes a client bound a session on, in order, as its events tell. */
export function nodesBound(events: readonly OnceClientEvent[]): NodeAddress[] {
  return events.flatMap((event) =>
    event.type === 'node' ? [{ host: event.host, port: event.port }] : [],
  );
}

/** One client's share of a {@link DepositLoad}. */
interface Depositor extends ClusterClient {
  readonly account: string;
  readonly run: DepositRun;
}

/**
 * Several SDK clients of the cluster, each pipelining `total` deposits of 1
 * into an account of its own that it opened first, all at once: the writes
 * a failover happens under.
 */
export class DepositLoad {
  private constructor(private readonly depositors: Depositor[]) {}

  static async start(cluster: OnceCluster, clients: number, total: number): Promise<DepositLoad> {
    const opened: Array<ClusterClient & { account: string }> = [];
    try {
      for (let i = 0; i < clients; i++) {
        const connected = await clusterClient(cluster);
        const account = accountName(`load${i}`);
        opened.push({ ...connected, account });
        await connected.client.command('ledger.open', { account });
      }
    } catch (error) {
      await Promise.allSettled(opened.map(({ client }) => client.close({ force: true })));
      throw error;
    }
    return new DepositLoad(
      opened.map((depositor) => ({
        ...depositor,
        run: new DepositRun(depositor.client, depositor.account, total),
      })),
    );
  }

  get clients(): readonly ClusterClient[] {
    return this.depositors;
  }

  /** Deposits settled so far, over every client. */
  get settled(): number {
    return this.depositors.reduce((sum, { run }) => sum + run.settled, 0);
  }

  /** The fewest deposits any client has left to settle: above 0 while every client still writes. */
  get leastUnsettled(): number {
    return Math.min(...this.depositors.map(({ run }) => run.total - run.settled));
  }

  /** Waits until every client has settled at least `count` deposits since the load began. */
  async eachSettledAtLeast(count: number, timeoutMs = 60_000): Promise<void> {
    await eventually(
      () => this.depositors.every(({ run }) => run.settled >= count),
      `every client at ${count} deposits settled`,
      timeoutMs,
    );
  }

  /**
   * Waits for every deposit to settle, then asserts each client's run came
   * out exactly once: no deposit rejected (nothing in doubt, nothing lost),
   * deposit k answered with balance k (each applied once, in order), the
   * balance read back equal to the deposits acknowledged, the session kept
   * throughout (resumed, never lost).
   */
  async expectExactlyOnce(): Promise<void> {
    for (const { client, events, account, run } of this.depositors) {
      const balances = await run.balances;
      expect(run.rejected).toEqual([]);
      expect(balances).toEqual(Array.from({ length: run.total }, (_, index) => index + 1));
      await expect(client.query('ledger.balance', { account })).resolves.toEqual({
        balance: run.total,
      });
      expect(events.filter((event) => event.type === 'session-lost')).toEqual([]);
    }
  }

  /** Closes every client (its session stays, its connection ends). */
  async close(): Promise<void> {
    await Promise.allSettled(this.depositors.map(({ client }) => client.close({ force: true })));
  }
}
