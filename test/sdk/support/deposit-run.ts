import { type OnceClient } from '@once/sdk';
import { type TcpProxy, eventually } from '@once/testing';

/**
 * `total` deposits of 1 into one account, all issued at once through one
 * OnceClient (which pipelines up to its `inFlightMax`), with what each came
 * to: its balance, or its rejection. The account must be opened by the
 * client's request 1, so deposit k is request k + 1.
 */
export class DepositRun {
  settled = 0;
  readonly rejected: unknown[] = [];
  /** Each deposit's balance (undefined where rejected), in the order issued. */
  readonly balances: Promise<Array<number | undefined>>;

  constructor(
    private readonly client: OnceClient,
    account: string,
    readonly total: number,
  ) {
    const deposits = Array.from({ length: total }, () =>
      client.command<{ balance: number }>('ledger.deposit', { account, amount: 1 }).then(
        (result) => {
          this.settled++;
          return result.balance;
        },
        (error: unknown) => {
          this.settled++;
          this.rejected.push(error);
          return undefined;
        },
      ),
    );
    this.balances = Promise.all(deposits);
  }

  /** Deposits sent under a number and not settled yet (request 1 opened the account). */
  inFlight(): number {
    return this.client.identity.nextRequest - 2 - this.settled;
  }

  /** Waits until at least `count` deposits settled. */
  settledAtLeast(count: number): Promise<void> {
    return eventually(() => this.settled >= count, `${count} deposits settled`);
  }

  /**
   * Takes `proxy` down with `window` deposits in doubt: its replies are held
   * until that many are sent and unanswered and `balance()` (read by another
   * session, not through `proxy`) shows every one of them committed; then it
   * refuses new connections and cuts the open ones, which loses the held
   * replies. The client knows nothing of their outcome.
   */
  async cutInDoubt(
    proxy: TcpProxy,
    window: number,
    balance: () => Promise<number>,
  ): Promise<{ inDoubt: number }> {
    proxy.setMode('toClient', 'hold');
    await eventually(() => this.inFlight() === window, `${window} deposits in flight`);
    const inDoubt = this.inFlight();
    await eventually(
      async () => (await balance()) === this.settled + inDoubt,
      `the ${inDoubt} deposits in flight committed`,
    );
    proxy.accepting = false;
    proxy.cut();
    proxy.setMode('toClient', 'forward');
    return { inDoubt };
  }
}
