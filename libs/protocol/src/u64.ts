/**
 * u64 header fields as JavaScript numbers.
 *
 * Ops, epochs, request numbers and watermarks the node produces stay far below
 * 2^53, so numbers are exact for every value the node itself writes. A peer may
 * still send any u64: above 2^53 the read rounds, but monotonically, so it still
 * compares as "larger than anything the node has" (EPOCH_AHEAD, REQUEST_GAP).
 * Replies that echo a peer's value copy its raw bytes instead (see frame-encoder).
 */

const TWO_32 = 4294967296;

/** Reads the little-endian u64 at `offset` as a number (exact up to 2^53 − 1). */
export function readU64(buffer: Buffer, offset: number): number {
  return buffer.readUInt32LE(offset) + buffer.readUInt32LE(offset + 4) * TWO_32;
}

/** Writes a non-negative safe integer as a little-endian u64 at `offset`. */
export function writeU64(buffer: Buffer, offset: number, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`not a u64 the node can represent exactly: ${value}`);
  }
  buffer.writeUInt32LE(value % TWO_32, offset);
  buffer.writeUInt32LE(Math.floor(value / TWO_32), offset + 4);
}
