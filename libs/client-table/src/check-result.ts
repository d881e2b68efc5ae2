/**
 * The answer to a COMMAND or LOGOUT against the client table: one variant per row of
 * PROTOCOL.md's COMMAND table, in its order. What the gateway does with each:
 *
 * - `no-session` (no entry): EVICTION NO_SESSION, unbind.
 * - `session-too-low` (session < epoch, fenced): EVICTION SESSION_TOO_LOW, unbind.
 * - `epoch-ahead` (session > epoch): REPLY EPOCH_AHEAD.
 * - `invalid-request` (request = 0): REPLY INVALID_REQUEST.
 * - `duplicate` (≤ watermark, cached, same checksum): the cached reply, byte for byte.
 * - `conflict` (≤ watermark, cached, other checksum): REPLY REQUEST_CONFLICT.
 * - `already-applied` (≤ watermark, no longer cached): REPLY ALREADY_APPLIED.
 * - `in-flight` (watermark < request ≤ highest admitted): nothing now. The table does not
 *   know in-flight checksums: the gateway compares with its own record of the admitted
 *   request and answers REQUEST_CONFLICT on other bytes.
 * - `new` (request = next expected): admit, i.e. journal it.
 * - `gap` (request > next expected): REPLY REQUEST_GAP.
 */
export type CheckResult =
  | { readonly kind: 'new' }
  | { readonly kind: 'no-session' }
  | { readonly kind: 'session-too-low'; readonly epoch: number; readonly watermark: number }
  | { readonly kind: 'epoch-ahead'; readonly epoch: number; readonly watermark: number }
  | { readonly kind: 'invalid-request' }
  | { readonly kind: 'duplicate'; readonly reply: Buffer }
  | { readonly kind: 'conflict'; readonly watermark: number }
  | { readonly kind: 'already-applied'; readonly watermark: number }
  | { readonly kind: 'in-flight' }
  | { readonly kind: 'gap'; readonly watermark: number; readonly nextExpected: number };
