import { xxh3 } from '@node-rs/xxhash';

/** Size in bytes of every checksum on the wire and on disk (a u128). */
export const CHECKSUM_SIZE = 16;

/**
 * One 16-byte scratch with a DataView: `setBigUint64` keeps the low 64 bits
 * of a BigInt by itself, so the u128 is laid out without the masking and
 * range checks of Buffer's BigInt writers (the hot path runs five checksums
 * per request). Single-threaded use only, never across an await.
 */
const scratch = Buffer.alloc(CHECKSUM_SIZE);
const scratchView = new DataView(scratch.buffer, scratch.byteOffset, CHECKSUM_SIZE);

function hashIntoScratch(data: Uint8Array): void {
  const value = xxh3.xxh128(data);
  scratchView.setBigUint64(0, value, true);
  scratchView.setBigUint64(8, value >> 64n, true);
}

/**
 * XXH3-128 with seed 0 of `data`, written into `target` at `offset` as a u128
 * (low 64 bits first), which is how PROTOCOL.md lays checksums out.
 */
export function checksumInto(data: Uint8Array, target: Buffer, offset: number): void {
  hashIntoScratch(data);
  scratch.copy(target, offset);
}

/** XXH3-128 of `data` as the 16 bytes that go on the wire. */
export function checksum(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(CHECKSUM_SIZE);
  checksumInto(data, out, 0);
  return out;
}

/** True when the 16 bytes at `offset` of `buffer` are the XXH3-128 of `data`. */
export function checksumMatches(data: Uint8Array, buffer: Uint8Array, offset: number): boolean {
  hashIntoScratch(data);
  return scratch.compare(buffer, offset, offset + CHECKSUM_SIZE) === 0;
}

/** The checksum of the empty body, which every body-less frame carries. */
export const EMPTY_CHECKSUM: Buffer = checksum(new Uint8Array(0));

/** Sixteen zero bytes: the "no checksum / no token" value. */
export const ZERO_CHECKSUM: Buffer = Buffer.alloc(CHECKSUM_SIZE);
