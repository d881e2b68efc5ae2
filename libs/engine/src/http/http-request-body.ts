import { EntryKind, InvalidEntryError } from '@once/journal';
import { type EntryDraft } from '@once/journal/internal';
import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import { type HttpRequestDraft } from './http-request';

/**
 * The body of an HTTP_REQUEST entry, JSON text in this key order:
 * `{"scope","key","pattern","data","status","refusalStatus"}`. The
 * fingerprint is the entry's `requestChecksum` and the principal's user id
 * its `userId`; the client, session and request are 0 (no once session
 * carries an HTTP request).
 */
export interface HttpRequestBody {
  readonly scope: string;
  readonly key: string;
  readonly pattern: string;
  /** What the apply step receives; `null` when the request had none. */
  readonly data: unknown;
  readonly status: number;
  readonly refusalStatus: number;
}

/** Bytes of a fingerprint: the size of an entry's `requestChecksum`. */
export const HTTP_FINGERPRINT_BYTES = 16;

export function encodeHttpRequestBody(body: HttpRequestBody): Buffer {
  return Buffer.from(
    JSON.stringify({
      scope: body.scope,
      key: body.key,
      pattern: body.pattern,
      data: body.data ?? null,
      status: body.status,
      refusalStatus: body.refusalStatus,
    }),
  );
}

/**
 * Reads an HTTP_REQUEST entry's body back; `undefined` when it is not one
 * (never throws): apply then answers it as a failure, like a COMMAND body
 * that does not read.
 */
export function decodeHttpRequestBody(bytes: Buffer): HttpRequestBody | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString());
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { scope, key, pattern, data, status, refusalStatus } = parsed as Record<string, unknown>;
  if (typeof scope !== 'string' || typeof key !== 'string' || typeof pattern !== 'string') {
    return undefined;
  }
  if (!isHttpStatus(status) || !isHttpStatus(refusalStatus)) return undefined;
  return { scope, key, pattern, data: data ?? null, status, refusalStatus };
}

/**
 * The key table's key for a request: its scope, a newline, its key. A
 * newline cannot be in an HTTP header value, so no two (scope, key) pairs
 * share it.
 */
export function scopedKeyOf(body: { readonly scope: string; readonly key: string }): string {
  return `${body.scope}\n${body.key}`;
}

/**
 * The journal draft of `request`. Throws {@link InvalidEntryError} for a
 * fingerprint that is not 16 bytes or a status that is not one (100 to
 * 599), before anything is journaled.
 */
export function httpRequestEntryDraft(request: HttpRequestDraft): EntryDraft {
  if (
    !Buffer.isBuffer(request.fingerprint) ||
    request.fingerprint.length !== HTTP_FINGERPRINT_BYTES
  ) {
    throw new InvalidEntryError('requestChecksum', 'must be the 16-byte fingerprint');
  }
  if (!isHttpStatus(request.status) || !isHttpStatus(request.refusalStatus)) {
    throw new InvalidEntryError(
      'body',
      `has a status that is not an integer from 100 to 599: ${String(request.status)}, ${String(request.refusalStatus)}`,
    );
  }
  return {
    kind: EntryKind.HttpRequest,
    client: ZERO_CLIENT_ID,
    session: 0,
    request: 0,
    userId: request.userId,
    requestChecksum: request.fingerprint,
    body: encodeHttpRequestBody(request),
  };
}

function isHttpStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
}
