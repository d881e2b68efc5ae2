import { type OnceClient } from '@once/sdk';

/**
 * What each account starts with. Small next to the transfers (MAX_TRANSFER_AMOUNT)
 * on purpose: random transfers drain some accounts now and then, so committed
 * refusals (INSUFFICIENT_FUNDS, which depend on the exact order of applied
 * transfers) are part of every run, a few percent of the transfers.
 */
export const INITIAL_BALANCE = 10_000;
/** Transfers move 1 to this much. */
export const MAX_TRANSFER_AMOUNT = 1_000;

/** `acct-00`, `acct-01`, … */
export function accountNames(count: number): string[] {
  const width = String(count - 1).length;
  return Array.from({ length: count }, (_, index) => `acct-${String(index).padStart(width, '0')}`);
}

/**
 * Opens every account and deposits INITIAL_BALANCE into each, before any
 * chaos. Resolves with the balances the ledger answered, which the final
 * reconciliation starts from.
 */
export async function openAccounts(
  client: OnceClient,
  accounts: readonly string[],
): Promise<Map<string, number>> {
  await Promise.all(accounts.map((account) => client.command('ledger.open', { account })));
  const balances = await Promise.all(
    accounts.map((account) =>
      client.command<{ balance: number }>('ledger.deposit', { account, amount: INITIAL_BALANCE }),
    ),
  );
  return new Map(accounts.map((account, index) => [account, balances[index].balance]));
}
