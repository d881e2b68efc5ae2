import { RedisBalances } from './redis-balances';

/**
 * {@link RedisBalances} that SIGKILLs its own process right after a deposit
 * to one account has moved the balance, before the handler returns: a crash
 * at the worst moment, made exact for the crash comparisons (the bench never
 * starts a peer so). The peer's code stays what a team writes; only where its
 * process dies is chosen.
 */
export class CrashingBalances extends RedisBalances {
  constructor(
    port: number,
    prefix: string,
    private readonly crashAccount: string,
  ) {
    super(port, prefix);
  }

  override async deposit(account: string, amount: number): Promise<number> {
    const balance = await super.deposit(account, amount);
    if (account === this.crashAccount) process.kill(process.pid, 'SIGKILL');
    return balance;
  }
}
