import { CommandError } from '@once/framework';
import { type LedgerState } from './ledger.state';

/** The data of `ledger.open` and `ledger.balance`. */
export interface AccountRef {
  account?: unknown;
}
/** The data of `ledger.deposit`. */
export interface Deposit extends AccountRef {
  amount?: unknown;
}
/** The data of `ledger.transfer`. */
export interface Transfer {
  from?: unknown;
  to?: unknown;
  amount?: unknown;
  /** Optional idempotency key of the caller; a reused one is refused. */
  reference?: unknown;
}

/**
 * The ledger's rules, apart from the transports that reach them: the TCP
 * commands and the HTTP routes apply exactly these, so a deposit means the
 * same whichever way it came. Each validates first and mutates last (a
 * refusal must leave the state untouched); they run in apply steps only.
 */
export function openAccount(
  ledger: LedgerState,
  data: AccountRef,
): { account: string; balance: number } {
  const account = requireAccount(data?.account, 'account');
  if (ledger.accounts.has(account)) {
    throw new CommandError('ACCOUNT_EXISTS', `account "${account}" exists`);
  }
  ledger.accounts.set(account, 0);
  return { account, balance: 0 };
}

export function deposit(ledger: LedgerState, data: Deposit): { balance: number } {
  const account = requireAccount(data?.account, 'account');
  const amount = requireAmount(data?.amount);
  const balance = balanceOf(ledger, account) + amount;
  requireSafe(balance);
  ledger.accounts.set(account, balance);
  return { balance };
}

export function transfer(ledger: LedgerState, data: Transfer): { from: number; to: number } {
  const from = requireAccount(data?.from, 'from');
  const to = requireAccount(data?.to, 'to');
  const amount = requireAmount(data?.amount);
  const reference = data?.reference;
  if (
    reference !== undefined &&
    (typeof reference !== 'string' || reference.length === 0 || reference.length > 128)
  ) {
    throw new CommandError('INVALID_ARGUMENT', 'reference must be a string of 1 to 128 characters');
  }
  if (from === to) throw new CommandError('INVALID_ARGUMENT', 'from and to must differ');
  const fromBalance = balanceOf(ledger, from);
  const toBalance = balanceOf(ledger, to);
  if (reference !== undefined && ledger.references.has(reference)) {
    throw new CommandError('DUPLICATE_REFERENCE', `transfer "${reference}" was already applied`);
  }
  if (fromBalance < amount) {
    throw new CommandError(
      'INSUFFICIENT_FUNDS',
      `account "${from}" holds ${fromBalance}, needs ${amount}`,
    );
  }
  requireSafe(toBalance + amount);
  ledger.accounts.set(from, fromBalance - amount);
  ledger.accounts.set(to, toBalance + amount);
  if (reference !== undefined) ledger.references.add(reference);
  return { from: fromBalance - amount, to: toBalance + amount };
}

export function balance(ledger: LedgerState, data: AccountRef): { balance: number } {
  return { balance: balanceOf(ledger, requireAccount(data?.account, 'account')) };
}

function balanceOf(ledger: LedgerState, account: string): number {
  const balance = ledger.accounts.get(account);
  if (balance === undefined) throw new CommandError('ACCOUNT_NOT_FOUND', `no account "${account}"`);
  return balance;
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
