/**
 * The body of a journaled COMMAND entry.
 *
 * An admitted command keeps the request's own `{"pattern", "data"}` JSON (byte
 * for byte when admission did not transform it): whatever else a client puts
 * in that object is ignored at apply. A command refused at admission (a guard
 * said no) is journaled as `!` followed by `{"pattern", "code", "message"}`:
 * no JSON text starts with `!`, and the gateway journals only bodies that
 * parsed as a JSON object, so a client can never write a refusal of its own.
 * The refusal is committed, so the request number stays used and a retry is
 * answered with the same refusal. Plaintext never reaches this body when an
 * admission step replaced it.
 */
export type CommandBody =
  | { readonly pattern: string; readonly data: unknown; readonly refusal?: undefined }
  | {
      readonly pattern: string;
      readonly refusal: CommandRefusal;
    };

/** A refusal decided before apply, journaled so that apply answers it (see {@link CommandBody}). */
export interface CommandRefusal {
  readonly code: string;
  readonly message: string;
  /** The body's additive `rpcError` (PROTOCOL-NOTES); absent when undefined. */
  readonly rpcError?: unknown;
}

/** First byte of a refusal body. */
const REFUSAL_MARK = 0x21; // '!'

export function encodeCommandBody(body: CommandBody): Buffer {
  if (body.refusal) {
    const { code, message, rpcError } = body.refusal;
    const json = JSON.stringify({
      pattern: body.pattern,
      code,
      message,
      ...rpcErrorField(rpcError),
    });
    return Buffer.concat([Buffer.from([REFUSAL_MARK]), Buffer.from(json)]);
  }
  return Buffer.from(JSON.stringify({ pattern: body.pattern, data: body.data ?? null }));
}

/** Reads a COMMAND entry body back; `undefined` when it is not one (never throws). */
export function decodeCommandBody(bytes: Uint8Array): CommandBody | undefined {
  // A journal read hands in a Buffer already: no view to make (replay decodes every body).
  const view = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const isRefusal = view.length > 0 && view[0] === REFUSAL_MARK;
  let parsed: unknown;
  try {
    // toString() without arguments is Buffer's UTF-8 fast path.
    parsed = JSON.parse((isRefusal ? view.subarray(1) : view).toString());
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  if (typeof record.pattern !== 'string') return undefined;
  if (isRefusal) {
    const { code, message, rpcError } = record;
    if (typeof code !== 'string' || typeof message !== 'string') return undefined;
    const refusal = rpcError === undefined ? { code, message } : { code, message, rpcError };
    return { pattern: record.pattern, refusal };
  }
  return { pattern: record.pattern, data: record.data ?? null };
}

/** `{ rpcError }` when JSON can carry it, else nothing: a refusal is journaled even when it cannot. */
function rpcErrorField(rpcError: unknown): { rpcError?: unknown } {
  if (rpcError === undefined || rpcError === null) return {};
  try {
    return JSON.stringify(rpcError) === undefined ? {} : { rpcError };
  } catch {
    return {};
  }
}
