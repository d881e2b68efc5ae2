import { Body, Controller, Get, Inject, Param, Post } from '@nestjs/common';
import { Idempotent } from '@node-idempotency/nestjs';
import { checkedDeposit, HTTP_BALANCES, type HttpDepositAnswer } from './http-deposit';
import { type RedisBalances } from './redis-balances';

/**
 * The deposit endpoint as a team makes it idempotent without once:
 * `@node-idempotency/nestjs`'s interceptor over its Redis storage. Before
 * the handler it claims the key (`SET NX`, IN_PROGRESS); after it, it stores
 * the response (COMPLETE); a key it finds COMPLETE is answered from the
 * store (`Idempotent-Replayed: true`), one IN_PROGRESS with 409.
 *
 * The balance moves in a write of its own, between the two: the claim, the
 * state change and the stored response are three writes, not one. A process
 * that dies between them leaves the key IN_PROGRESS (every retry answered
 * 409 until the key's TTL), the balance moved or not; that is what the
 * bench's crash comparison with once shows.
 */
@Controller('ledger')
export class IdempotentHttpDepositController {
  constructor(@Inject(HTTP_BALANCES) private readonly balances: RedisBalances) {}

  @Post('deposit')
  @Idempotent({ enforceIdempotency: true })
  async deposit(@Body() body: unknown): Promise<HttpDepositAnswer> {
    const { account, amount } = checkedDeposit(body);
    return { balance: await this.balances.deposit(account, amount) };
  }

  @Get('balance/:account')
  async balance(@Param('account') account: string): Promise<HttpDepositAnswer> {
    return { balance: await this.balances.balance(account) };
  }
}
