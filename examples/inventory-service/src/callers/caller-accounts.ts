/** One service allowed to call the inventory. */
export interface CallerAccount {
  /**
   * The user id once journals with each of the caller's sessions. It must
   * never change or be given to another caller: a session belongs to the
   * user id it was registered with.
   */
  readonly userId: number;
  /** SHA-256 (hex) of the caller's secret; the secret itself is never stored. */
  readonly secretSha256: string;
}

/** Username → account. */
export type CallerAccounts = ReadonlyMap<string, CallerAccount>;

/** The configuration is unusable; the message names what is wrong, never a secret. */
export class CallerAccountsError extends Error {
  override readonly name = 'CallerAccountsError';
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Reads `INVENTORY_CALLERS`: a JSON object of the services allowed to call,
 * `{"orders": {"userId": 1, "secretSha256": "<64 hex digits>"}}`. Each secret
 * is a random token (e.g. `openssl rand -hex 32`) handed to its service; this
 * service keeps only its hash. A missing or malformed setting stops the start.
 */
export function callerAccountsFrom(env: NodeJS.ProcessEnv): CallerAccounts {
  const text = env.INVENTORY_CALLERS;
  if (text === undefined || text.trim() === '') {
    throw new CallerAccountsError('INVENTORY_CALLERS is not set: no service could call');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CallerAccountsError('INVENTORY_CALLERS is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CallerAccountsError('INVENTORY_CALLERS is a JSON object: username → account');
  }
  const accounts = new Map<string, CallerAccount>();
  const userIds = new Set<number>();
  for (const [username, value] of Object.entries(parsed as Record<string, unknown>)) {
    const { userId, secretSha256 } = (value ?? {}) as Record<string, unknown>;
    if (typeof userId !== 'number' || !Number.isSafeInteger(userId) || userId < 1) {
      throw new CallerAccountsError(`INVENTORY_CALLERS: ${username}.userId is an integer ≥ 1`);
    }
    if (userIds.has(userId)) {
      throw new CallerAccountsError(`INVENTORY_CALLERS: user id ${userId} is given twice`);
    }
    if (typeof secretSha256 !== 'string' || !SHA256_HEX.test(secretSha256)) {
      throw new CallerAccountsError(
        `INVENTORY_CALLERS: ${username}.secretSha256 is 64 lowercase hex digits`,
      );
    }
    userIds.add(userId);
    accounts.set(username, { userId, secretSha256 });
  }
  return accounts;
}
