import { Redis } from 'ioredis';

/**
 * The HTTP peers' ledger: balances in Redis, one `INCRBY` per deposit, over
 * one ioredis connection with auto-pipelining. Kept in the same durable
 * Redis as the idempotency keys (`appendfsync always`), not in the peer's
 * memory, so that a peer SIGKILLed and started again finds every balance it
 * acknowledged: what a crash comparison needs, and what a team would do.
 */
export class RedisBalances {
  private readonly redis: Redis;

  constructor(
    port: number,
    /** Prefix of the balance keys (`<prefix>acct:<account>`), so peers can share one Redis. */
    private readonly prefix: string,
  ) {
    this.redis = new Redis({
      host: '127.0.0.1',
      port,
      enableAutoPipelining: true,
      lazyConnect: true,
    });
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  /** Adds `amount` to the account; the balance right after. */
  deposit(account: string, amount: number): Promise<number> {
    return this.redis.incrby(this.key(account), amount);
  }

  /** The account's balance (0 for an account never deposited to). */
  async balance(account: string): Promise<number> {
    return Number((await this.redis.get(this.key(account))) ?? 0);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }

  private key(account: string): string {
    return `${this.prefix}acct:${account}`;
  }
}
