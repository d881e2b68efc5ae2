import { CommandRefusedError, type OnceClient } from '@once/sdk';

/** Attempts per balance query; a query is a read, so a failed one is simply made again. */
const QUERY_ATTEMPTS = 5;

/** Every account's balance as the node answers `ledger.balance` now. */
export async function readBalances(
  client: OnceClient,
  accounts: readonly string[],
): Promise<Map<string, number>> {
  const balances = await Promise.all(accounts.map((account) => balanceOf(client, account)));
  return new Map(accounts.map((account, index) => [account, balances[index]]));
}

async function balanceOf(client: OnceClient, account: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await client.query<{ balance: number }>('ledger.balance', { account })).balance;
    } catch (error) {
      // A refusal (ACCOUNT_NOT_FOUND) is an answer, not a hiccup.
      if (error instanceof CommandRefusedError || attempt >= QUERY_ATTEMPTS) throw error;
    }
  }
}
