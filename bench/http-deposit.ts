import { BadRequestException } from '@nestjs/common';

/** The body of `POST /ledger/deposit` on the HTTP peers. */
export interface HttpDepositBody {
  readonly account: string;
  readonly amount: number;
}

/** What a deposit answers: the balance right after it. */
export interface HttpDepositAnswer {
  readonly balance: number;
}

/** The Nest injection token of the peers' {@link RedisBalances}. */
export const HTTP_BALANCES = Symbol('HttpBalances');

/**
 * The body checked, as a team's DTO validation would: a non-empty account
 * and a positive integer amount, else 400 (a refusal, not retried).
 */
export function checkedDeposit(body: unknown): HttpDepositBody {
  const { account, amount } = (body ?? {}) as Partial<Record<keyof HttpDepositBody, unknown>>;
  if (typeof account !== 'string' || account === '') {
    throw new BadRequestException('account must be a non-empty string');
  }
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
    throw new BadRequestException('amount must be a positive integer');
  }
  return { account, amount };
}
