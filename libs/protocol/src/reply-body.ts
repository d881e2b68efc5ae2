/**
 * The outcome body of COMMAND and QUERY replies (PROTOCOL.md, "COMMAND"):
 * `{"ok":true,"result":any}` or `{"ok":false,"error":{"code":s,"message":s}}`.
 *
 * A COMMAND's body is cached and replayed byte for byte, so it must be a
 * deterministic function of the handler's outcome: these builders fix the key
 * order and always emit every key.
 */

/** A decoded outcome body. */
export type ReplyOutcome =
  /** `result` is undefined when the handler produced no value (`"empty":true`). */
  { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

/**
 * `{"ok":true,"result":…}`. A result JSON cannot express (`undefined`, a
 * function, a symbol) is written as `null`, so the `result` key is never
 * dropped; it is then marked `"empty":true` (PROTOCOL-NOTES), so a client can
 * tell "no value" (a NestJS client completes without emitting) from an
 * explicit `null`. Throws whatever `JSON.stringify` throws (a cycle, a bigint).
 */
export function okBody(result: unknown): Buffer {
  return Buffer.from(okBodyText(result), 'utf8');
}

/** {@link okBody} as text, for writing straight into a frame without an intermediate buffer. */
const EMPTY_OK_BODY = '{"ok":true,"result":null,"empty":true}';

export function okBodyText(result: unknown): string {
  const json = result === undefined ? undefined : JSON.stringify(result);
  return json === undefined ? EMPTY_OK_BODY : `{"ok":true,"result":${json}}`;
}

/**
 * `{"ok":false,"error":{"code":…,"message":…}}`, with `"rpcError":…` after
 * `message` when `rpcError` is given and JSON can express it (PROTOCOL-NOTES:
 * the error object a NestJS RPC client would receive). A value JSON cannot
 * express (a cycle, a bigint, a function) is left out, so the body is always
 * written and always the same for the same arguments.
 */
export function errorBody(code: string, message: string, rpcError?: unknown): Buffer {
  return Buffer.from(errorBodyText(code, message, rpcError), 'utf8');
}

/** {@link errorBody} as text. */
export function errorBodyText(code: string, message: string, rpcError?: unknown): string {
  const extra = rpcErrorJson(rpcError);
  return `{"ok":false,"error":{"code":${JSON.stringify(String(code))},"message":${JSON.stringify(String(message))}${extra === undefined ? '' : `,"rpcError":${extra}`}}}`;
}

function rpcErrorJson(rpcError: unknown): string | undefined {
  if (rpcError === undefined || rpcError === null) return undefined;
  try {
    const json: string | undefined = JSON.stringify(rpcError);
    return json;
  } catch {
    return undefined;
  }
}

/**
 * Reads an outcome body (client side). `undefined` when the bytes are not an
 * outcome body, e.g. the body of a reply with a non-OK status, which is empty.
 */
export function parseReplyBody(body: Uint8Array): ReplyOutcome | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const outcome = value as { ok?: unknown; result?: unknown; empty?: unknown; error?: unknown };
  if (outcome.ok === true) {
    return { ok: true, result: outcome.empty === true ? undefined : (outcome.result ?? null) };
  }
  if (outcome.ok !== false || typeof outcome.error !== 'object' || outcome.error === null) {
    return undefined;
  }
  const { code, message } = outcome.error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { ok: false, error: { code, message } };
}
