/**
 * What the CLI prints in place of a credential. The journal holds what
 * clients sent (a password in `users.create`, a new one in a password
 * change) and replies may hold resume tokens: an operator inspecting a
 * session must never see, or paste into a ticket, any of them.
 */
export const REDACTED = '[redacted]';

/**
 * Keys whose values are credentials or material to attack one: passwords in
 * any casing or compound (`password`, `newPassword`, `currentPassword`),
 * secrets, salts, password hashes and session tokens.
 */
const CREDENTIAL_KEY = /pass(word)?|secret|salt|hash|token|credential/i;

/** True when a field named `key` must never be printed. */
export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key);
}

/**
 * A deep copy of `value` (decoded JSON) with every credential field's value
 * replaced by {@link REDACTED}, at any depth, inside arrays too. Values that
 * are not plain JSON containers are returned as they are.
 */
export function redactCredentials(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactCredentials);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    copy[key] = isCredentialKey(key) ? REDACTED : redactCredentials(field);
  }
  return copy;
}
