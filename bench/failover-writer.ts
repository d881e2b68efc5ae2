import {
  type ClientId,
  Command,
  type Frame,
  Operation,
  Status,
  randomClientId,
} from '@once/protocol';
import { RawClient } from '@once/testing';
import { benchPayload } from './bench-payload';
import { sleep } from './sleep';

/** Where and as whom a {@link FailoverWriter} writes. */
export interface FailoverWriterOptions {
  readonly host: string;
  /** Every node's port, the leader's included. */
  readonly ports: readonly number[];
  /** Index in `ports` of the node that leads now. */
  readonly leaderIndex: number;
  readonly username: string;
  readonly password: string;
  readonly payloadBytes: number;
}

/** The first write committed after the leader went away. */
export interface FailoverCommit {
  /** `performance.now()` when its reply arrived. */
  readonly atMs: number;
  /** Index of the node that answered it. */
  readonly nodeIndex: number;
  /** Connections tried until then (each: REGISTER, then the retried deposit). */
  readonly attempts: number;
}

const REQUEST_TIMEOUT_MS = 5000;
/** Pause between two rounds over the other nodes: the failover figure's resolution. */
const ROUND_PAUSE_MS = 10;
const FAILOVER_TIMEOUT_MS = 120_000;
const OK_OUTCOME = '{"ok":true';

/**
 * A client that writes through the leader, one `ledger.deposit` after the
 * other, until the leader goes away; then it looks for a node that commits
 * its in-doubt deposit: round after round over the other nodes, each try on
 * a new connection a REGISTER of the same client id (resuming its session)
 * and the deposit again under the same request number, as the protocol
 * says an in-doubt request is settled. Followers and a leader still taking
 * over answer NOT_READY; the first OK deposit reply ends it.
 */
export class FailoverWriter {
  private readonly account: string;
  private readonly deposit: string;
  private request = 1;
  private committedCount = 0;
  private leaderLostAtMs: number | undefined;
  private readonly committedWaiters = new Set<() => void>();
  /** Resolves with the first commit through another node. */
  readonly failover: Promise<FailoverCommit>;

  private constructor(
    private readonly options: FailoverWriterOptions,
    private readonly client: ClientId,
    leader: RawClient,
    session: number,
  ) {
    this.account = `failover-${client.slice(0, 16)}`;
    this.deposit = JSON.stringify({
      pattern: 'ledger.deposit',
      data: benchPayload(this.account, options.payloadBytes),
    });
    this.failover = this.writeThroughLeader(leader, session).then(() => this.findNextLeader());
    // Awaited by the caller after the kill; a rejection before that is kept, not unhandled.
    this.failover.catch(() => undefined);
  }

  /** Connects to the leader, registers and opens the writer's account; writing starts at once. */
  static async start(options: FailoverWriterOptions): Promise<FailoverWriter> {
    const leader = await RawClient.connect(options.ports[options.leaderIndex], options.host);
    try {
      const client = randomClientId();
      const session = await register(leader, client, options);
      if (session === undefined) throw new Error('the leader refused the REGISTER');
      return new FailoverWriter(options, client, leader, session);
    } catch (error) {
      leader.destroy();
      throw error;
    }
  }

  /** Deposits committed through the first leader. */
  get committed(): number {
    return this.committedCount;
  }

  /** `performance.now()` when the writer lost the first leader. */
  get lostAtMs(): number | undefined {
    return this.leaderLostAtMs;
  }

  /** Resolves once `count` deposits committed through the first leader. */
  async whenCommitted(count: number): Promise<void> {
    while (this.committedCount < count) {
      if (this.leaderLostAtMs !== undefined) {
        throw new Error(`the writer lost the leader after ${this.committedCount} deposits`);
      }
      await new Promise<void>((wake) => this.committedWaiters.add(wake));
    }
  }

  private async writeThroughLeader(leader: RawClient, session: number): Promise<void> {
    try {
      await this.commit(leader, session, 'ledger.open');
      while (await this.commit(leader, session, 'ledger.deposit')) {
        this.committedCount++;
        for (const wake of this.committedWaiters) wake();
        this.committedWaiters.clear();
      }
    } catch {
      // The leader is gone (closed connection) or stopped answering.
    } finally {
      this.leaderLostAtMs = performance.now();
      leader.destroy();
      for (const wake of this.committedWaiters) wake();
    }
  }

  /** Sends the current request; true when it committed (the next one is then due). */
  private async commit(client: RawClient, session: number, pattern: string): Promise<boolean> {
    const body =
      pattern === 'ledger.deposit'
        ? this.deposit
        : JSON.stringify({ pattern, data: { account: this.account } });
    const reply = await client.request(
      { operation: Operation.Command, client: this.client, session, request: this.request },
      body,
      REQUEST_TIMEOUT_MS,
    );
    if (!isOkOutcome(reply)) return false;
    this.request++;
    return true;
  }

  private async findNextLeader(): Promise<FailoverCommit> {
    const others = this.options.ports.flatMap((_, index) =>
      index === this.options.leaderIndex ? [] : [index],
    );
    const deadlineMs = performance.now() + FAILOVER_TIMEOUT_MS;
    let attempts = 0;
    for (;;) {
      for (const index of others) {
        attempts++;
        if (await this.tryNode(index))
          return { atMs: performance.now(), nodeIndex: index, attempts };
      }
      if (performance.now() > deadlineMs) {
        throw new Error(`no node committed within ${FAILOVER_TIMEOUT_MS} ms of losing the leader`);
      }
      await sleep(ROUND_PAUSE_MS);
    }
  }

  /** One try on node `index`: resume the session there and retry the in-doubt deposit. */
  private async tryNode(index: number): Promise<boolean> {
    let client: RawClient | undefined;
    try {
      client = await RawClient.connect(this.options.ports[index], this.options.host);
      const session = await register(client, this.client, this.options);
      return session !== undefined && (await this.commit(client, session, 'ledger.deposit'));
    } catch {
      return false;
    } finally {
      client?.destroy();
    }
  }
}

/** REGISTERs `client` (new, or resumed); its session epoch, or undefined when refused. */
async function register(
  connection: RawClient,
  client: ClientId,
  options: FailoverWriterOptions,
): Promise<number | undefined> {
  const reply = await connection.request(
    { operation: Operation.Register, client },
    JSON.stringify({ username: options.username, password: options.password }),
    REQUEST_TIMEOUT_MS,
  );
  return isOk(reply) ? reply.header.session : undefined;
}

/** An OK REPLY (a REGISTER's). */
function isOk(frame: Frame): boolean {
  return (
    (frame.header.command as Command) === Command.Reply &&
    (frame.header.status as Status) === Status.Ok
  );
}

/** An OK REPLY whose outcome is ok (a COMMAND's). */
function isOkOutcome(frame: Frame): boolean {
  return isOk(frame) && frame.body.toString('utf8', 0, OK_OUTCOME.length) === OK_OUTCOME;
}
