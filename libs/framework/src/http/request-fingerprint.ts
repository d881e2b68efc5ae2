import { createHash } from 'node:crypto';

/** Bytes of a request fingerprint (what the journal's request checksum field holds). */
export const FINGERPRINT_BYTES = 16;

/**
 * The canonical JSON text of `value`: `JSON.stringify`'s, with every
 * object's keys in code-point order, so two bodies that differ only in the
 * order of their keys are the same request. What JSON cannot hold reads as
 * `JSON.stringify` reads it (`undefined` members dropped, `undefined` in an
 * array as `null`, a `toJSON` called).
 */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, member: unknown) => {
      if (member === null || typeof member !== 'object' || Array.isArray(member)) return member;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(member).sort()) {
        sorted[key] = (member as Record<string, unknown>)[key];
      }
      return sorted;
    }) ?? 'null'
  );
}

/**
 * What tells two requests under one key apart: the first 16 bytes of the
 * SHA-256 of the method, the route (its template: `/accounts/:id`) and the
 * canonical JSON of the data journaled for the apply step. A retry carries
 * the same fingerprint; the same key with another body, another route
 * parameter or another route does not (422 `IDEMPOTENCY_KEY_REUSED`).
 * Headers other than the key, and what the pipes dropped, take no part.
 */
export function requestFingerprint(method: string, route: string, data: unknown): Buffer {
  return createHash('sha256')
    .update(`${method}\n${route}\n${canonicalJson(data)}`)
    .digest()
    .subarray(0, FINGERPRINT_BYTES);
}
