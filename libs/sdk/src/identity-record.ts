import { type ClientId, isClientId } from '@once/protocol';
import { ZERO_CLIENT_ID } from '@once/protocol/internal';

/** A command the previous owner of the identity sent (or was about to send) without an answer. */
export interface InDoubtRecord {
  readonly request: number;
  /** The exact body bytes: resent as is, so its `checksum_body` matches the first send. */
  readonly body: Buffer;
}

/**
 * Everything a process needs to resume a session after a crash: the identity
 * and the commands in doubt. Written by {@link writeIdentityFile}.
 *
 * Invariants (checked when decoding): `nextRequest ≥ 1`, `watermark < nextRequest`,
 * a resume token exactly when `epoch > 0`, in-doubt requests strictly increasing
 * and each in `1..nextRequest-1`.
 */
export interface IdentityRecord {
  readonly clientId: ClientId;
  readonly userId: number;
  /** 0: no session yet (the next connect REGISTERs this client id afresh). */
  readonly epoch: number;
  readonly resumeToken: Buffer | undefined;
  readonly nextRequest: number;
  readonly watermark: number;
  /**
   * A REGISTER was sent and its answer not seen: the node may have moved the
   * epoch past the stored one, so the stored token may be fenced. The next
   * resume REGISTERs instead of presenting the token.
   */
  readonly registering: boolean;
  readonly inDoubt: readonly InDoubtRecord[];
}

/** The on-disk version; bumped on any incompatible change of the format. */
export const IDENTITY_FILE_VERSION = 1;

/** The record as JSON text (one object, stable key order). */
export function encodeIdentityRecord(record: IdentityRecord): string {
  return (
    JSON.stringify({
      version: IDENTITY_FILE_VERSION,
      clientId: record.clientId,
      userId: record.userId,
      epoch: record.epoch,
      resumeToken: record.resumeToken ? record.resumeToken.toString('hex') : null,
      nextRequest: record.nextRequest,
      watermark: record.watermark,
      registering: record.registering,
      inDoubt: record.inDoubt.map(({ request, body }) => ({
        request,
        body: body.toString('base64'),
      })),
    }) + '\n'
  );
}

/**
 * Parses and validates the JSON text of an identity file. Returns the record,
 * or a description of the first problem found (the caller names the file).
 */
export function decodeIdentityRecord(text: string): IdentityRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'not a JSON object';
  }
  const raw = value as Record<string, unknown>;
  if (raw.version !== IDENTITY_FILE_VERSION) {
    return `unknown version ${JSON.stringify(raw.version)} (expected ${IDENTITY_FILE_VERSION})`;
  }
  const { clientId, userId, epoch, resumeToken, nextRequest, watermark, registering, inDoubt } =
    raw;
  if (!isClientId(clientId) || clientId === ZERO_CLIENT_ID) {
    return 'clientId is not a non-zero client id (32 lowercase hex digits)';
  }
  for (const [name, field] of [
    ['userId', userId],
    ['epoch', epoch],
    ['watermark', watermark],
  ] as const) {
    if (!isCount(field)) return `${name} is not a non-negative safe integer`;
  }
  if (!isCount(nextRequest) || nextRequest < 1) return 'nextRequest is not an integer ≥ 1';
  if ((watermark as number) >= nextRequest) return 'watermark is not below nextRequest';
  let token: Buffer | undefined;
  if (resumeToken === null) {
    token = undefined;
  } else if (typeof resumeToken === 'string' && /^[0-9a-f]{32}$/.test(resumeToken)) {
    token = Buffer.from(resumeToken, 'hex');
  } else {
    return 'resumeToken is neither null nor 32 lowercase hex digits';
  }
  if ((epoch as number) > 0 !== (token !== undefined)) {
    return 'resumeToken must be present exactly when epoch > 0';
  }
  if (typeof registering !== 'boolean') return 'registering is not a boolean';
  if (!Array.isArray(inDoubt)) return 'inDoubt is not an array';
  const entries: InDoubtRecord[] = [];
  let previous = 0;
  for (const item of inDoubt as unknown[]) {
    const entry = item as { request?: unknown; body?: unknown } | null;
    if (typeof entry !== 'object' || entry === null) return 'an inDoubt entry is not an object';
    const { request, body } = entry;
    if (!isCount(request) || request <= previous || request >= nextRequest) {
      return `inDoubt request ${JSON.stringify(request)} is not increasing within 1..nextRequest-1`;
    }
    if (typeof body !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(body)) {
      return `inDoubt request ${request} has no base64 body`;
    }
    entries.push({ request, body: Buffer.from(body, 'base64') });
    previous = request;
  }
  return {
    clientId,
    userId: userId as number,
    epoch: epoch as number,
    resumeToken: token,
    nextRequest,
    watermark: watermark as number,
    registering,
    inDoubt: entries,
  };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
