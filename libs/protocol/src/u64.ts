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

const U64_END = 1n << 64n;
/** Where {@link writeBigU64} lays a bigint out before copying its 8 bytes. */
const bigScratch = new Uint8Array(8);
const bigScratchView = new DataView(bigScratch.buffer);

/**
 * Writes a u64 bigint little-endian at `offset`, the bytes of
 * `Buffer#writeBigUInt64LE` (and its RangeError outside 0..2^64-1) at less
 * cost: DataView's writer splits the bigint natively, where Buffer's masks and
 * shifts it as bigints. Every reply and journal entry carries a timestamp.
 */
export function writeBigU64(buffer: Uint8Array, offset: number, value: bigint): void {
  if (typeof value !== 'bigint' || value < 0n || value >= U64_END) {
    throw new RangeError(`not a u64: ${String(value)}`);
  }
  if (offset < 0 || offset + 8 > buffer.length) {
    throw new RangeError(`offset ${offset} leaves no 8 bytes in ${buffer.length}`);
  }
  bigScratchView.setBigUint64(0, value, true);
  for (let i = 0; i < 8; i++) buffer[offset + i] = bigScratch[i];
}
