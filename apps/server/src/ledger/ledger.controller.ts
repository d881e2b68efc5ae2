import { Controller } from '@nestjs/common';
import { Command, CommandError, Query } from '@once/framework';
import { LedgerState } from './ledger.state';

interface AccountRef {
  account?: unknown;
}
interface Deposit extends AccountRef {
  amount?: unknown;
}
interface Transfer {
  from?: unknown;
  to?: unknown;
  amount?: unknown;
  /** Optional idempotency key of the caller; a reused one is refused. */
  reference?: unknown;
}

/**
 * A ledger, written the way a team writes its own exactly-once module: plain
 * state in a @ReplicatedState provider, @Command methods that validate first
 * and mutate last (a refusal must leave the state untouched), @Query methods
 * that only read.
 */
@Controller()
export class LedgerController {
  constructor(private readonly ledger: LedgerState) {}

  @Command('ledger.open', { sensitive: [] })
  open(data: AccountRef): { account: string; balance: number } {
    const account = requireAccount(data?.account, 'account');
    if (this.ledger.accounts.has(account)) {
      throw new CommandError('ACCOUNT_EXISTS', `account "${account}" exists`);
    }
    this.ledger.accounts.set(account, 0);
    return { account, balance: 0 };
  }

  @Command('ledger.deposit', { sensitive: [] })
  deposit(data: Deposit): { balance: number } {
    const account = requireAccount(data?.account, 'account');
    const amount = requireAmount(data?.amount);
    const balance = this.balanceOf(account) + amount;
    requireSafe(balance);
    this.ledger.accounts.set(account, balance);
    return { balance };
  }

  @Command('ledger.transfer', { sensitive: [] })
  transfer(data: Transfer): { from: number; to: number } {
    const from = requireAccount(data?.from, 'from');
    const to = requireAccount(data?.to, 'to');
    const amount = requireAmount(data?.amount);
    const reference = data?.reference;
    if (
      reference !== undefined &&
      (typeof reference !== 'string' || reference.length === 0 || reference.length > 128)
    ) {
      throw new CommandError(
        'INVALID_ARGUMENT',
        'reference must be a string of 1 to 128 characters',
      );
    }
    if (from === to) throw new CommandError('INVALID_ARGUMENT', 'from and to must differ');
    const fromBalance = this.balanceOf(from);
    const toBalance = this.balanceOf(to);
    if (reference !== undefined && this.ledger.references.has(reference)) {
      throw new CommandError('DUPLICATE_REFERENCE', `transfer "${reference}" was already applied`);
    }
    if (fromBalance < amount) {
      throw new CommandError(
        'INSUFFICIENT_FUNDS',
        `account "${from}" holds ${fromBalance}, needs ${amount}`,
      );
    }
    requireSafe(toBalance + amount);
    this.ledger.accounts.set(from, fromBalance - amount);
    this.ledger.accounts.set(to, toBalance + amount);
    if (reference !== undefined) this.ledger.references.add(reference);
    return { from: fromBalance - amount, to: toBalance + amount };
  }

  @Query('ledger.balance')
  balance(data: AccountRef): { balance: number } {
    return { balance: this.balanceOf(requireAccount(data?.account, 'account')) };
  }

  private balanceOf(account: string): number {
    const balance = this.ledger.accounts.get(account);
    if (balance === undefined)
      throw new CommandError('ACCOUNT_NOT_FOUND', `no account "${account}"`);
    return balance;
  }
}

function requireAccount(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new CommandError(
      'INVALID_ARGUMENT',
      `${field} must be an account name of 1 to 128 characters`,
    );
  }
  return value;
}

function requireAmount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new CommandError('INVALID_AMOUNT', 'amount must be a positive integer');
  }
  return value;
}

function requireSafe(balance: number): void {
  if (!Number.isSafeInteger(balance)) {
    throw new CommandError('INVALID_AMOUNT', 'the resulting balance is too large');
  }
}
