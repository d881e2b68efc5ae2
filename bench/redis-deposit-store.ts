import { Redis } from 'ioredis';
import { type DepositRequest, type DepositStore } from './deposit-store';

/**
 * The whole deposit as one Lua script, which Redis runs atomically: claim the
 * key with SET NX; if it was already claimed, return the reply stored under
 * it; else INCRBY the balance and store the reply under the key. With
 * `appendfsync always`, Redis answers only once the script's writes are in
 * the fsynced AOF.
 */
const DEPOSIT_SCRIPT = `
if redis.call('SET', KEYS[1], '', 'NX') then
  local balance = redis.call('INCRBY', KEYS[2], ARGV[1])
  local reply = '{"ok":true,"balance":' .. balance .. '}'
  redis.call('SET', KEYS[1], reply)
  return reply
end
return redis.call('GET', KEYS[1])
`;

type DepositCommand = (requestKey: string, balanceKey: string, amount: number) => Promise<string>;

/**
 * The Redis peer's store: one ioredis connection with auto-pipelining (the
 * commands of one event-loop turn leave in one write), the script sent by
 * EVALSHA. Request keys are `req:<key>`, balances `acct:<account>`.
 */
export class RedisDepositStore implements DepositStore {
  private readonly redis: Redis;
  private readonly depositScript: DepositCommand;

  constructor(port: number) {
    this.redis = new Redis({
      host: '127.0.0.1',
      port,
      enableAutoPipelining: true,
      lazyConnect: true,
    });
    this.redis.defineCommand('onceDeposit', { numberOfKeys: 2, lua: DEPOSIT_SCRIPT });
    const commands = this.redis as unknown as { onceDeposit: DepositCommand };
    this.depositScript = commands.onceDeposit.bind(this.redis);
  }

  async connect(): Promise<void> {
    await this.redis.connect();
  }

  deposit(request: DepositRequest): Promise<string> {
    return this.depositScript(`req:${request.key}`, `acct:${request.account}`, request.amount);
  }

  async balance(account: string): Promise<number> {
    return Number((await this.redis.get(`acct:${account}`)) ?? 0);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
