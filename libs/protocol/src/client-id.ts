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

/**
 * The value of each hex digit by char code, -1 for any other character.
 * `LOWER_HEX` accepts 0-9a-f only (the form a {@link ClientId} must have);
 * `ANY_HEX` also accepts A-F, as {@link writeClientId} always has.
 */
const LOWER_HEX = hexDigitTable(false);
const ANY_HEX = hexDigitTable(true);

function hexDigitTable(upperToo: boolean): Int8Array {
  const table = new Int8Array(128).fill(-1);
  for (let digit = 0; digit < 16; digit++) {
    table[digit.toString(16).charCodeAt(0)] = digit;
    if (upperToo) table[digit.toString(16).toUpperCase().charCodeAt(0)] = digit;
  }
  return table;
}

/** The value of the hex digit at `index` of `text` by `table`, or -1. */
function hexDigitAt(table: Int8Array, text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? table[code] : -1;
}

/** The id's bytes in big-endian order, for {@link readClientId}; never held across calls. */
const ID_SCRATCH = Buffer.alloc(16);

/** True when `value` is a well-formed {@link ClientId} (zero included). */
export function isClientId(value: unknown): value is ClientId {
  if (typeof value !== 'string' || value.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    if (hexDigitAt(LOWER_HEX, value, i) < 0) return false;
  }
  return true;
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
 * Every reply and journal entry carries one, so the digits are decoded here in
 * plain JavaScript (no call into the native hex decoder) straight into their
 * little-endian places: the id's first two digits are the u128's last byte.
 * Accepts upper-case digits as well; throws a TypeError on anything else.
 */
export function writeClientId(buffer: Uint8Array, offset: number, id: ClientId): void {
  if (!writeHexClientId(ANY_HEX, buffer, offset, id)) {
    throw new TypeError(`not a client id (32 lowercase hex digits): ${String(id)}`);
  }
}

/**
 * Writes `id` like {@link writeClientId} when it is a well-formed
 * {@link ClientId} (lower-case) and returns true; otherwise returns false and
 * the 16 target bytes are unspecified. Validates and writes in one pass.
 */
export function writeValidClientId(buffer: Uint8Array, offset: number, id: unknown): boolean {
  return writeHexClientId(LOWER_HEX, buffer, offset, id);
}

function writeHexClientId(
  table: Int8Array,
  buffer: Uint8Array,
  offset: number,
  id: unknown,
): boolean {
  if (typeof id !== 'string' || id.length !== 32 || offset < 0 || offset + 16 > buffer.length) {
    return false;
  }
  for (let i = 0, at = offset + 15; i < 32; i += 2, at--) {
    const high = hexDigitAt(table, id, i);
    const low = hexDigitAt(table, id, i + 1);
    if (high < 0 || low < 0) return false;
    buffer[at] = (high << 4) | low;
  }
  return true;
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
