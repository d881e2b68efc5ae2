import { OnceClient, type OnceClientOptions } from '@once/sdk';
import { type AcknowledgementWatch } from './acknowledgement-watch';
import { MAX_TRANSFER_AMOUNT } from './ledger-setup';
import { type SeededRandom } from './seeded-random';
import {
  ACKNOWLEDGED,
  type Transfer,
  type TransferOutcome,
  type TransferRecord,
  outcomeOfError,
} from './transfer-record';

/** What a client's `events$` said during the run (diagnostics of the report). */
export interface ClientEventCounts {
  disconnects: number;
  resumedByToken: number;
  resumedByRegister: number;
  /** Reasons of the sessions the node ended (each turns the commands in doubt into OutcomeUnknownError). */
  readonly sessionsLost: string[];
}

/**
 * One load client: an OnceClient with its own client id (its own session)
 * that keeps `depth` transfers outstanding, pipelined by the SDK, each with a
 * reference never used before, and records what it learnt about each.
 */
export class TransferClient {
  readonly records: TransferRecord[] = [];
  readonly events: ClientEventCounts = {
    disconnects: 0,
    resumedByToken: 0,
    resumedByRegister: 0,
    sessionsLost: [],
  };
  /**
   * The SDK client stopped by itself before `close()` (it should not: it
   * reconnects forever); the in-doubt outcomes' reasons then say why.
   */
  stoppedEarly = false;
  private issuedCount = 0;
  private ended = false;
  private closing = false;

  private constructor(
    private readonly client: OnceClient,
    private readonly name: string,
    private readonly accounts: readonly string[],
    private readonly random: SeededRandom,
    private readonly depth: number,
    private readonly watch: AcknowledgementWatch | undefined,
  ) {
    client.events$.subscribe({
      next: (event) => {
        if (event.type === 'disconnected') this.events.disconnects++;
        else if (event.type === 'resumed' && event.how === 'token') this.events.resumedByToken++;
        else if (event.type === 'resumed') this.events.resumedByRegister++;
        else if (event.type === 'session-lost') this.events.sessionsLost.push(event.reason);
      },
      complete: () => {
        this.ended = true;
        this.stoppedEarly = !this.closing;
      },
    });
  }

  /**
   * Connects with `inFlightMax` = `depth`; `options` says where and as whom.
   * `watch`, when given, hears of every acknowledgement.
   */
  static async connect(
    options: OnceClientOptions,
    name: string,
    accounts: readonly string[],
    random: SeededRandom,
    depth: number,
    watch?: AcknowledgementWatch,
  ): Promise<TransferClient> {
    const client = await OnceClient.connect({ ...options, inFlightMax: depth });
    return new TransferClient(client, name, accounts, random, depth, watch);
  }

  /** Transfers issued so far (settled or not). */
  get issued(): number {
    return this.issuedCount;
  }

  /**
   * Issues transfers until `stopped()` says so (or the SDK client stops), then
   * resolves once every issued transfer settled: the drain. Each of the
   * `depth` lanes awaits its transfer before it issues the next one.
   */
  async run(stopped: () => boolean): Promise<void> {
    await Promise.all(Array.from({ length: this.depth }, () => this.lane(stopped)));
  }

  /** Closes without LOGOUT (the session stays, like a client process that exits). */
  close(): Promise<void> {
    this.closing = true;
    return this.client.close();
  }

  private async lane(stopped: () => boolean): Promise<void> {
    while (!stopped() && !this.ended) {
      const transfer = this.nextTransfer();
      this.records.push({ ...transfer, outcome: await this.send(transfer) });
    }
  }

  private nextTransfer(): Transfer {
    const count = this.accounts.length;
    const fromIndex = this.random.integer(0, count - 1);
    const toIndex = (fromIndex + this.random.integer(1, count - 1)) % count;
    this.issuedCount++;
    return {
      reference: `${this.name}-${this.issuedCount}`,
      from: this.accounts[fromIndex],
      to: this.accounts[toIndex],
      amount: this.random.integer(1, MAX_TRANSFER_AMOUNT),
    };
  }

  private async send(transfer: Transfer): Promise<TransferOutcome> {
    try {
      await this.client.command('ledger.transfer', transfer);
      this.watch?.acknowledged();
      return ACKNOWLEDGED;
    } catch (error) {
      return outcomeOfError(error);
    }
  }
}
