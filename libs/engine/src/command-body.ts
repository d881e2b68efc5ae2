/**
 * The body of a journaled COMMAND entry.
 *
 * Admitted commands keep the request's own `{"pattern", "data"}` JSON (byte for
 * byte when admission did not transform it). A command refused at admission (a
 * guard said no) is journaled as `{"pattern", "refusal": {code, message}}`: the
 * refusal is committed, so the request number stays used and a retry is
 * answered with the same refusal. Plaintext never reaches this body when an
 * admission step replaced it.
 */
export type CommandBody =
  | { readonly pattern: string; readonly data: unknown; readonly refusal?: undefined }
  | {
      readonly pattern: string;
      readonly refusal: { readonly code: string; readonly message: string };
    };

export function encodeCommandBody(body: CommandBody): Buffer {
  return Buffer.from(
    JSON.stringify(
      body.refusal
        ? {
            pattern: body.pattern,
            refusal: { code: body.refusal.code, message: body.refusal.message },
          }
        : { pattern: body.pattern, data: body.data ?? null },
    ),
  );
}

/** Reads a COMMAND entry body back; `undefined` when it is not one (never throws). */
export function decodeCommandBody(bytes: Uint8Array): CommandBody | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
    );
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { pattern, data, refusal } = parsed as Record<string, unknown>;
  if (typeof pattern !== 'string') return undefined;
  if (refusal !== undefined) {
    if (typeof refusal !== 'object' || refusal === null) return undefined;
    const { code, message } = refusal as Record<string, unknown>;
    if (typeof code !== 'string' || typeof message !== 'string') return undefined;
    return { pattern, refusal: { code, message } };
  }
  return { pattern, data: data ?? null };
}
