/**
 * Journal and snapshot keys: the op as an 8-byte big-endian integer.
 *
 * Big-endian because LevelDB orders keys bytewise: this makes key order equal
 * op order, so "the last entry" is one reverse seek and replay is one forward
 * scan.
 */
import { bufferView } from './buffer-view';

/** Byte length of every op key. */
export const OP_KEY_BYTES = 8;

const TWO_32 = 4294967296;
/** High 32 bits of 2^53: ops at or above it are not exact numbers. */
const MAX_SAFE_HIGH_WORD = 0x20_0000;

/** The key of `op` (a non-negative safe integer). */
export function encodeOpKey(op: number): Buffer {
  const key = Buffer.allocUnsafe(OP_KEY_BYTES);
  writeOpKey(op, key, 0);
  return key;
}

/**
 * Writes the key of `op` (a non-negative safe integer) at `offset` of
 * `target`: the bytes {@link encodeOpKey} gives, in a buffer the caller owns
 * (the journal writes it after its sublevel's prefix, one buffer per entry).
 */
export function writeOpKey(op: number, target: Buffer, offset: number): void {
  if (!Number.isSafeInteger(op) || op < 0) {
    throw new RangeError(`not an op: ${op}`);
  }
  target.writeUInt32BE(Math.floor(op / TWO_32), offset);
  target.writeUInt32BE(op % TWO_32, offset + 4);
}

/**
 * The op a key names, or `undefined` when the key is not an op key this store
 * writes (wrong length, or beyond 2^53 − 1).
 */
export function decodeOpKey(key: Uint8Array): number | undefined {
  if (key.byteLength !== OP_KEY_BYTES) return undefined;
  const bytes = bufferView(key);
  const high = bytes.readUInt32BE(0);
  if (high >= MAX_SAFE_HIGH_WORD) return undefined; // op >= 2^53: never written by this store
  return high * TWO_32 + bytes.readUInt32BE(4);
}
