import { createHmac, timingSafeEqual } from 'node:crypto';
import { type ClientId, isClientId, writeClientId } from './client-id';
import { FieldOutOfRangeError, ProtocolError } from './protocol-error';
import { writeU64 } from './u64';
import { isZero } from './zero-bytes';

/** Bytes of a resume token: the header's `resume_token` field. */
export const RESUME_TOKEN_SIZE = 16;

/** Bytes of the node secret PROTOCOL.md asks for (created with the data directory). */
export const NODE_SECRET_SIZE = 32;

/** HMAC input: client (16 bytes LE) ‖ session (8 bytes LE). */
const MESSAGE_BYTES = 24;

/**
 * The token that lets a connection rebind to `(client, session)` without a
 * REGISTER: the first 16 bytes of HMAC-SHA256(node_secret, client ‖ session).
 *
 * Derived rather than stored, so it survives restarts and costs no journal
 * entry; only a holder of the node secret can produce one.
 */
export function mintResumeToken(nodeSecret: Uint8Array, client: ClientId, session: number): Buffer {
  assertNodeSecret(nodeSecret);
  if (!isClientId(client)) {
    throw new FieldOutOfRangeError('client', client, 'client id (32 lowercase hex digits)');
  }
  if (!Number.isSafeInteger(session) || session < 0) {
    throw new FieldOutOfRangeError('session', session, 'u64 below 2^53');
  }
  return digest(nodeSecret, client, session);
}

/**
 * True when `token` is the resume token of `(client, session)`.
 *
 * Compared in constant time, so response timing does not leak how many leading
 * bytes of a guess were right. An all-zero token means "no token" on the wire
 * and never verifies. Peer-supplied arguments never throw: a malformed client,
 * a session the node could not have minted (above 2^53) or a token of the wrong
 * length are all just `false`.
 */
export function verifyResumeToken(
  nodeSecret: Uint8Array,
  client: ClientId,
  session: number,
  token: Uint8Array,
): boolean {
  assertNodeSecret(nodeSecret);
  if (token.length !== RESUME_TOKEN_SIZE || isZero(token)) return false;
  if (!isClientId(client) || !Number.isSafeInteger(session) || session < 0) return false;
  return timingSafeEqual(digest(nodeSecret, client, session), token);
}

/** A token as the 32 hex digits of its bytes in wire order (the REGISTER reply's `resumeToken`). */
export function resumeTokenToHex(token: Uint8Array): string {
  if (token.length !== RESUME_TOKEN_SIZE) {
    throw new ProtocolError(
      'INVALID_RESUME_TOKEN',
      `a resume token has ${RESUME_TOKEN_SIZE} bytes, got ${token.length}`,
    );
  }
  return Buffer.from(token.buffer, token.byteOffset, token.byteLength).toString('hex');
}

/** The inverse of {@link resumeTokenToHex}; throws unless given exactly 32 hex digits. */
export function resumeTokenFromHex(hex: string): Buffer {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{32}$/.test(hex)) {
    throw new ProtocolError(
      'INVALID_RESUME_TOKEN',
      `a resume token is ${2 * RESUME_TOKEN_SIZE} hex digits, got ${JSON.stringify(hex)}`,
    );
  }
  return Buffer.from(hex, 'hex');
}

function digest(nodeSecret: Uint8Array, client: ClientId, session: number): Buffer {
  const message = Buffer.allocUnsafe(MESSAGE_BYTES);
  writeClientId(message, 0, client);
  writeU64(message, 16, session);
  return createHmac('sha256', nodeSecret).update(message).digest().subarray(0, RESUME_TOKEN_SIZE);
}

function assertNodeSecret(nodeSecret: Uint8Array): void {
  if (nodeSecret.length !== NODE_SECRET_SIZE) {
    throw new ProtocolError(
      'INVALID_NODE_SECRET',
      `the node secret has ${NODE_SECRET_SIZE} bytes, got ${nodeSecret.length}`,
    );
  }
}
