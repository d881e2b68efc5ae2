import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { DEPOSIT_STORE, type DepositRequest, type DepositStore } from './deposit-store';

/**
 * The durable peers' handler: what a team writes for an exactly-once deposit
 * without once, a NestJS TCP message handler over an idempotency key kept in
 * a database. It returns the stored reply as is (a JSON string), as a first
 * call and a resend must answer alike.
 */
@Controller()
export class DepositController {
  constructor(@Inject(DEPOSIT_STORE) private readonly store: DepositStore) {}

  @MessagePattern('deposit')
  deposit(data: DepositRequest): Promise<string> {
    return this.store.deposit(data);
  }

  /** For the exactly-once check: the account's balance. */
  @MessagePattern('balance')
  balance(data: { account: string }): Promise<number> {
    return this.store.balance(data.account);
  }
}
