import { type OnceClient } from '@once/sdk';
import { accountName } from './wire';

/**
 * Opens a fresh ledger account through `client`, deposits `amount` and reads
 * the balance back, expecting each step to succeed; returns the account.
 */
export async function expectLedgerRoundTrip(
  client: OnceClient,
  prefix: string,
  amount = 5,
): Promise<string> {
  const account = accountName(prefix);
  await expect(client.command('ledger.open', { account })).resolves.toEqual({
    account,
    balance: 0,
  });
  await expect(client.command('ledger.deposit', { account, amount })).resolves.toEqual({
    balance: amount,
  });
  await expect(client.query('ledger.balance', { account })).resolves.toEqual({ balance: amount });
  return account;
}
