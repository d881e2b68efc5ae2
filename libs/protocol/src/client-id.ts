import { randomBytes } from 'node:crypto';

/**
 * A client id (u128) as 32 lowercase hex digits, most significant digit first.
 *
 * Why a string: it is a cheap `Map` key, it is what `groups.get` shows users,
 * and fixed-width big-endian hex sorts exactly like the number, so "ties go to
 * the lowest client id" is a plain string comparison.
 */
export type ClientId = string;

/** The reserved id 0: system entries carry it; clients never may. */
export const ZERO_CLIENT_ID: ClientId = '0'.repeat(32);

const CLIENT_ID_PATTERN = /^[0-9a-f]{32}$/;

/** The id's bytes in big-endian order, for {@link readClientId}; never held across calls. */
const ID_SCRATCH = Buffer.alloc(16);

/** True when `value` is a well-formed {@link ClientId} (zero included). */
export function isClientId(value: unknown): value is ClientId {
  return typeof value === 'string' && CLIENT_ID_PATTERN.test(value);
}

/**
 * Reads the u128 at `offset` (16 bytes, low 64 bits first) as a {@link ClientId}.
 *
 * The bytes are reversed into a scratch and hex-encoded natively, which gives
 * a flat string. Appending 32 digits one byte at a time gave a rope of
 * concatenations that V8 flattened again at its first use as a `Map` key or
 * in a comparison: header decoding and replay read a client id per frame and
 * per journal entry.
 */
export function readClientId(buffer: Uint8Array, offset: number): ClientId {
  for (let i = 0; i < 16; i++) ID_SCRATCH[i] = buffer[offset + 15 - i];
  return ID_SCRATCH.toString('hex');
}

/**
 * Writes `id` as a u128 at `offset` (16 bytes, low 64 bits first).
 *
 * Every reply and journal entry carries one: the hex is decoded natively
 * (which also validates it: decoding stops at the first non-hex digit) and
 * the big-endian digits are reversed in place into the little-endian u128.
 */
export function writeClientId(buffer: Uint8Array, offset: number, id: ClientId): void {
  const target = Buffer.isBuffer(buffer)
    ? buffer
    : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  if (typeof id !== 'string' || id.length !== 32 || target.write(id, offset, 16, 'hex') !== 16) {
    throw new TypeError(`not a client id (32 lowercase hex digits): ${String(id)}`);
  }
  for (let low = offset, high = offset + 15; low < high; low++, high--) {
    const byte = target[low];
    target[low] = target[high];
    target[high] = byte;
  }
}

/** A bigint to a {@link ClientId}; rejects values outside u128. */
export function clientIdFromBigInt(value: bigint): ClientId {
  if (value < 0n || value >= 1n << 128n) {
    throw new RangeError(`client id out of u128 range: ${value}`);
  }
  return value.toString(16).padStart(32, '0');
}

/** The numeric value of a {@link ClientId}. */
export function clientIdToBigInt(id: ClientId): bigint {
  return BigInt('0x' + id);
}

/** A fresh random non-zero client id, as PROTOCOL.md asks clients to use. */
export function randomClientId(): ClientId {
  for (;;) {
    const id = randomBytes(16).toString('hex');
    if (id !== ZERO_CLIENT_ID) return id;
  }
}
