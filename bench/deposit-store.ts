/** One deposit as the durable peers receive it: `data` of a `deposit` message. */
export interface DepositRequest {
  /** The idempotency key: unique per request, the same on a resend. */
  readonly key: string;
  readonly account: string;
  readonly amount: number;
}

/**
 * Where a durable peer keeps its idempotency keys, balances and stored
 * replies (Redis or PostgreSQL). `deposit` is exactly-once per key: the
 * first call moves the balance and stores its reply in the same atomic
 * step; every later call with that key returns the stored reply and moves
 * nothing.
 */
export interface DepositStore {
  /** The reply of the deposit with this key (`{"ok":true,"balance":N}`), stored by its first call. */
  deposit(request: DepositRequest): Promise<string>;
  /** The account's balance (0 for an account never deposited to). */
  balance(account: string): Promise<number>;
  close(): Promise<void>;
}

/** The Nest injection token of the peer's {@link DepositStore}. */
export const DEPOSIT_STORE = Symbol('DepositStore');

/** The reply a deposit stores and returns: the account's balance right after it. */
export function depositReply(balance: number | string): string {
  return `{"ok":true,"balance":${balance}}`;
}
