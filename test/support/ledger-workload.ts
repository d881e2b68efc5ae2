import { CommandRefusedError, type NodeAddress, OnceClient } from '@once/sdk';
import { eventually } from '@once/testing';
import { ADMIN_PASSWORD } from './wire';

/**
 * `count` admin SDK clients of one node (`port`) or of a cluster (`nodes`).
 * Each pipelines up to the node's ring (8), reconnects quickly, and resends
 * every in-doubt command under its own number after a crash; a request is
 * given minutes, so that a hang still fails but restarts under load do not.
 */
export async function connectLedgerClients(
  where: { readonly port: number } | { readonly nodes: readonly NodeAddress[] },
  count: number,
): Promise<OnceClient[]> {
  const clients: OnceClient[] = [];
  try {
    for (let i = 0; i < count; i++) {
      clients.push(
        await OnceClient.connect({
          ...('port' in where ? { port: where.port } : { nodes: [...where.nodes] }),
          username: 'admin',
          password: ADMIN_PASSWORD,
          inFlightMax: 8,
          requestTimeoutMs: 300_000,
          reconnect: { initialDelayMs: 10, delayMsMax: 200 },
          logger: false,
        }),
      );
    }
  } catch (error) {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    throw error;
  }
  return clients;
}

/**
 * A seeded pseudo-random source (mulberry32): a failing run names its seed,
 * and `KEYED_E2E_SEED=<seed>` draws the same numbers again (which client
 * draws which still depends on when replies arrive).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of this run: `KEYED_E2E_SEED` when set, else a fresh one. */
export function runSeed(): number {
  const given = process.env.KEYED_E2E_SEED;
  return given !== undefined ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/** An integer in [low, high]. */
export function between(random: () => number, low: number, high: number): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** Options of a {@link LedgerWorkload}. */
export interface LedgerWorkloadOptions {
  /** Commands each client makes (opens, deposits, transfers). */
  readonly commandsPerClient: number;
  /** Commands each client keeps in flight at most (the SDK pipelines them). Default 8. */
  readonly window?: number;
  /** Accounts opened before the load, shared by every client. Default 8. */
  readonly sharedAccounts?: number;
  readonly random: () => number;
  /** A prefix of every account and reference, so that workloads on one node never collide. */
  readonly tag: string;
  /** The share of commands that open an account (a new record); the rest deposit or transfer. Default 0.1. */
  readonly openShare?: number;
}

/**
 * Ledger load from several SDK clients: each opens accounts of its own as it
 * goes, deposits into any open account, and transfers between them (half of
 * the transfers with a reference, kept in the ledger's keyed set), all at
 * once, pipelined.
 *
 * What the ledger must hold afterwards is booked from the replies only: a
 * deposit or transfer counts once the node acknowledged it, a transfer
 * refused for lack of funds changes nothing. The SDK resends a request whose
 * reply a crash took under its own number, so every command ends with the
 * node's answer to it: its first outcome, never a second application. Any
 * other refusal or failure is an anomaly the test reports.
 */
export class LedgerWorkload {
  /** Account → the balance the acknowledged commands leave it with. */
  readonly expected = new Map<string, number>();
  /** References of the transfers acknowledged. */
  readonly references = new Set<string>();
  /** Answers a correct node never gives. */
  readonly anomalies: string[] = [];
  /** Commands answered so far (acknowledged or refused). */
  settled = 0;
  /** Amount deposited by the acknowledged deposits, in total. */
  deposited = 0;
  /** Transfers refused for lack of funds (committed refusals). */
  insufficient = 0;
  /** Resolves when every client has made its commands. */
  readonly done: Promise<void>;

  private constructor(
    private readonly clients: readonly OnceClient[],
    private readonly options: LedgerWorkloadOptions,
    shared: readonly string[],
  ) {
    for (const account of shared) this.expected.set(account, 0);
    this.done = Promise.all(clients.map((client, index) => this.runClient(client, index))).then(
      () => undefined,
    );
  }

  /** Opens the shared accounts through the first client, then starts the load. */
  static async start(
    clients: readonly OnceClient[],
    options: LedgerWorkloadOptions,
  ): Promise<LedgerWorkload> {
    const shared = Array.from(
      { length: options.sharedAccounts ?? 8 },
      (_, index) => `${options.tag}-shared-${index}`,
    );
    for (const account of shared) await clients[0].command('ledger.open', { account });
    return new LedgerWorkload(clients, options, shared);
  }

  /** Set while paused: workers wait for it before their next command. */
  private gate: { readonly opened: Promise<void>; readonly open: () => void } | undefined;

  /**
   * Holds back new commands (those in flight still settle), so that a slow
   * step of the test (a node restarting) does not let the load run out.
   */
  pause(): void {
    if (this.gate) return;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.gate = { opened, open };
  }

  /** Lets the workers go on after {@link pause}. */
  resume(): void {
    const gate = this.gate;
    this.gate = undefined;
    gate?.open();
  }

  /** Commands of the whole load. */
  get total(): number {
    return this.clients.length * this.options.commandsPerClient;
  }

  /** Whether commands are still to be answered. */
  get running(): boolean {
    return this.settled < this.total;
  }

  /** Waits until `count` more commands settled than had when called (or all of them did). */
  async settledMore(count: number, timeoutMs = 120_000): Promise<void> {
    const target = Math.min(this.total, this.settled + count);
    await eventually(() => this.settled >= target, `${target} commands settled`, timeoutMs);
  }

  /** Every account's balance read back through `client`, against what was booked. */
  async expectBalances(client: OnceClient): Promise<void> {
    const read = new Map<string, number>();
    for (const account of this.expected.keys()) {
      const { balance } = await client.query<{ balance: number }>('ledger.balance', { account });
      read.set(account, balance);
    }
    expect(Object.fromEntries(read)).toEqual(Object.fromEntries(this.expected));
    // Transfers move money and never make any: the total is what was deposited.
    expect([...read.values()].reduce((sum, balance) => sum + balance, 0)).toBe(this.deposited);
  }

  private async runClient(client: OnceClient, index: number): Promise<void> {
    const { random, tag } = this.options;
    const own: string[] = [];
    let next = 0;
    let opened = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        while (this.gate) await this.gate.opened;
        if (next >= this.options.commandsPerClient) return;
        next++;
        const accounts = [...this.expected.keys()];
        const pick = random();
        const openShare = this.options.openShare ?? 0.1;
        if (pick < openShare || own.length === 0) {
          const account = `${tag}-c${index}-a${opened++}`;
          await this.settle(`open ${account}`, client.command('ledger.open', { account }), () => {
            this.expected.set(account, 0);
            own.push(account);
          });
        } else if (pick < openShare + (1 - openShare) / 2) {
          const account = accounts[between(random, 0, accounts.length - 1)];
          const amount = between(random, 1, 9);
          await this.settle(
            `deposit ${amount} to ${account}`,
            client.command('ledger.deposit', { account, amount }),
            () => {
              this.expected.set(account, this.expected.get(account)! + amount);
              this.deposited += amount;
            },
          );
        } else {
          const from = random() < 0.5 ? own[between(random, 0, own.length - 1)] : accounts[0];
          const candidates = accounts.filter((account) => account !== from);
          const to = candidates[between(random, 0, candidates.length - 1)];
          const amount = between(random, 1, 5);
          const reference = random() < 0.5 ? `${tag}-c${index}-t${next}` : undefined;
          await this.settle(
            `transfer ${amount} from ${from} to ${to}`,
            client.command('ledger.transfer', { from, to, amount, reference }),
            () => {
              this.expected.set(from, this.expected.get(from)! - amount);
              this.expected.set(to, this.expected.get(to)! + amount);
              if (reference !== undefined) this.references.add(reference);
            },
            'INSUFFICIENT_FUNDS',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: this.options.window ?? 8 }, worker));
  }

  private async settle(
    what: string,
    command: Promise<unknown>,
    acknowledged: () => void,
    refusal?: string,
  ): Promise<void> {
    try {
      await command;
      acknowledged();
    } catch (error) {
      if (refusal !== undefined && error instanceof CommandRefusedError && error.code === refusal) {
        this.insufficient++;
      } else {
        this.anomalies.push(`${what}: ${String(error)}`);
      }
    } finally {
      this.settled++;
    }
  }
}
