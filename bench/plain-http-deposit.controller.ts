import { Body, Controller, Get, Inject, Param, Post } from '@nestjs/common';
import { checkedDeposit, HTTP_BALANCES, type HttpDepositAnswer } from './http-deposit';
import { type RedisBalances } from './redis-balances';

/**
 * The HTTP baseline: the deposit endpoint with no idempotency at all. A
 * retried request moves the balance again. The bench's floor for the cost
 * of HTTP and NestJS alone.
 */
@Controller('ledger')
export class PlainHttpDepositController {
  constructor(@Inject(HTTP_BALANCES) private readonly balances: RedisBalances) {}

  @Post('deposit')
  async deposit(@Body() body: unknown): Promise<HttpDepositAnswer> {
    const { account, amount } = checkedDeposit(body);
    return { balance: await this.balances.deposit(account, amount) };
  }

  @Get('balance/:account')
  async balance(@Param('account') account: string): Promise<HttpDepositAnswer> {
    return { balance: await this.balances.balance(account) };
  }
}
