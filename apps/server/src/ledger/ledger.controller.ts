import { Controller } from '@nestjs/common';
import { Command, Query } from '@once/framework';
import * as rules from './ledger-operations';
import { LedgerState } from './ledger.state';

/**
 * A ledger, written the way a team writes its own exactly-once module: plain
 * state in a @ReplicatedState provider, @Command methods that apply the
 * ledger's rules (see `ledger-operations.ts`), @Query methods that only read.
 */
@Controller()
export class LedgerController {
  constructor(private readonly ledger: LedgerState) {}

  @Command('ledger.open', { sensitive: [] })
  open(data: rules.AccountRef): { account: string; balance: number } {
    return rules.openAccount(this.ledger, data);
  }

  @Command('ledger.deposit', { sensitive: [] })
  deposit(data: rules.Deposit): { balance: number } {
    return rules.deposit(this.ledger, data);
  }

  @Command('ledger.transfer', { sensitive: [] })
  transfer(data: rules.Transfer): { from: number; to: number } {
    return rules.transfer(this.ledger, data);
  }

  @Query('ledger.balance')
  balance(data: rules.AccountRef): { balance: number } {
    return rules.balance(this.ledger, data);
  }
}
