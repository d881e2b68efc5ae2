import { Pool, type PoolClient } from 'pg';
import { type DepositRequest, type DepositStore, depositReply } from './deposit-store';

/** How the PostgreSQL peer runs a deposit. */
export type PgDepositVariant = 'transaction' | 'function';

/** The pool the issue measured with: as many connections as the peer may wait on at once. */
const POOL_SIZE = 32;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS requests (key text PRIMARY KEY, reply text);
CREATE TABLE IF NOT EXISTS accounts (account text PRIMARY KEY, balance bigint NOT NULL);
CREATE OR REPLACE FUNCTION once_deposit(k text, acct text, amt bigint) RETURNS text AS $$
DECLARE
  stored text;
  new_balance bigint;
BEGIN
  INSERT INTO requests (key) VALUES (k) ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    SELECT reply INTO stored FROM requests WHERE key = k;
    RETURN stored;
  END IF;
  INSERT INTO accounts (account, balance) VALUES (acct, amt)
    ON CONFLICT (account) DO UPDATE SET balance = accounts.balance + excluded.balance
    RETURNING balance INTO new_balance;
  stored := '{"ok":true,"balance":' || new_balance || '}';
  UPDATE requests SET reply = stored WHERE key = k;
  RETURN stored;
END
$$ LANGUAGE plpgsql;
`;

/**
 * The PostgreSQL peer's store. Both variants do the same in one transaction,
 * committed with `synchronous_commit=on` before the reply: claim the key
 * (INSERT … ON CONFLICT DO NOTHING; a resend conflicts, or waits for the
 * first attempt's commit and then conflicts), add to the balance, store the
 * reply under the key; a resend returns the stored reply.
 *
 * - `transaction`: the statements from the client, BEGIN to COMMIT on one
 *   pooled connection (five round trips).
 * - `function`: the same statements in the plpgsql function `once_deposit`,
 *   one round trip (a lone statement is its own transaction).
 */
export class PgDepositStore implements DepositStore {
  private readonly pool: Pool;

  constructor(
    connection: { host: string; port: number; user: string; database: string },
    private readonly variant: PgDepositVariant,
  ) {
    this.pool = new Pool({ ...connection, max: POOL_SIZE });
  }

  /** Creates the tables and the function (idempotent). */
  async connect(): Promise<void> {
    await this.pool.query(SCHEMA);
  }

  async deposit(request: DepositRequest): Promise<string> {
    if (this.variant === 'function') {
      const result = await this.pool.query<{ reply: string }>(
        'SELECT once_deposit($1, $2, $3) AS reply',
        [request.key, request.account, request.amount],
      );
      return result.rows[0].reply;
    }
    const client = await this.pool.connect();
    try {
      return await depositInTransaction(client, request);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async balance(account: string): Promise<number> {
    const result = await this.pool.query<{ balance: string }>(
      'SELECT balance FROM accounts WHERE account = $1',
      [account],
    );
    return Number(result.rows[0]?.balance ?? 0);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

async function depositInTransaction(client: PoolClient, request: DepositRequest): Promise<string> {
  await client.query('BEGIN');
  const claimed = await client.query(
    'INSERT INTO requests (key) VALUES ($1) ON CONFLICT DO NOTHING',
    [request.key],
  );
  if (claimed.rowCount === 0) {
    const stored = await client.query<{ reply: string }>(
      'SELECT reply FROM requests WHERE key = $1',
      [request.key],
    );
    await client.query('COMMIT');
    return stored.rows[0].reply;
  }
  const updated = await client.query<{ balance: string }>(
    `INSERT INTO accounts (account, balance) VALUES ($1, $2)
     ON CONFLICT (account) DO UPDATE SET balance = accounts.balance + excluded.balance
     RETURNING balance`,
    [request.account, request.amount],
  );
  const reply = depositReply(updated.rows[0].balance);
  await client.query('UPDATE requests SET reply = $2 WHERE key = $1', [request.key, reply]);
  await client.query('COMMIT');
  return reply;
}
