import {
  Body,
  Controller,
  Get,
  HttpCode,
  Post,
  Query as QueryParam,
  UseGuards,
} from '@nestjs/common';
import { Idempotent } from '@once/framework';
import * as rules from '../ledger/ledger-operations';
import { LedgerState } from '../ledger/ledger.state';
import { BasicAuthGuard } from './basic-auth.guard';

/**
 * The ledger over HTTP: the same rules as its TCP commands (see
 * `ledger-operations.ts`), each write an exactly-once route that requires an
 * `Idempotency-Key`. A first request answers 200 with the result, a refusal
 * 422 with the `{code, message}` of the TCP refusal; a retry with the same
 * key gets that very answer again (`Idempotent-Replayed: true`).
 */
@Controller('ledger')
@UseGuards(BasicAuthGuard)
export class LedgerHttpController {
  constructor(private readonly ledger: LedgerState) {}

  @Post('open')
  @HttpCode(200)
  @Idempotent({ state: 'ledger', sensitive: [] })
  open(@Body() body: rules.AccountRef): { account: string; balance: number } {
    return rules.openAccount(this.ledger, body);
  }

  @Post('deposit')
  @HttpCode(200)
  @Idempotent({ state: 'ledger', sensitive: [] })
  deposit(@Body() body: rules.Deposit): { balance: number } {
    return rules.deposit(this.ledger, body);
  }

  @Post('transfer')
  @HttpCode(200)
  @Idempotent({ state: 'ledger', sensitive: [] })
  transfer(@Body() body: rules.Transfer): { from: number; to: number } {
    return rules.transfer(this.ledger, body);
  }

  /** A read of this node's applied state (the leader's, in a cluster, is the newest). */
  @Get('balance')
  balance(@QueryParam('account') account: unknown): { balance: number } {
    return rules.balance(this.ledger, { account });
  }
}
