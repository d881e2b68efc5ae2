import { randomUUID } from 'node:crypto';

/** The request header that carries the key (IETF httpapi "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** A key is printable ASCII, as an sf-string requires (RFC 9651 §3.3.3). */
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** A new key for one logical operation: a random UUID, unique without coordination. */
export function newIdempotencyKey(): string {
  return randomUUID();
}

/** Whether `key` can be sent as an sf-string: non-empty printable ASCII. */
export function isIdempotencyKeySendable(key: string): boolean {
  return PRINTABLE_ASCII.test(key);
}

/**
 * The header value of `key`: an sf-string (`"…"`, with `"` and `\` escaped),
 * the form the draft specifies; servers that take Stripe's bare token accept
 * it too when they follow the draft.
 */
export function idempotencyKeyHeaderValue(key: string): string {
  return `"${key.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
