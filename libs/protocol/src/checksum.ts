import { xxh3 } from '@node-rs/xxhash';

/** Size in bytes of every checksum on the wire and on disk (a u128). */
export const CHECKSUM_SIZE = 16;

const LOW_64 = (1n << 64n) - 1n;

/**
 * XXH3-128 with seed 0 of `data`, written into `target` at `offset` as a u128
 * (low 64 bits first), which is how PROTOCOL.md lays checksums out.
 */
export function checksumInto(data: Uint8Array, target: Buffer, offset: number): void {
  const value = xxh3.xxh128(data);
  target.writeBigUInt64LE(value & LOW_64, offset);
  target.writeBigUInt64LE(value >> 64n, offset + 8);
}

/** XXH3-128 of `data` as the 16 bytes that go on the wire. */
export function checksum(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(CHECKSUM_SIZE);
  checksumInto(data, out, 0);
  return out;
}

/** True when the 16 bytes at `offset` of `buffer` are the XXH3-128 of `data`. */
export function checksumMatches(data: Uint8Array, buffer: Uint8Array, offset: number): boolean {
  const value = xxh3.xxh128(data);
  const view = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  return (
    view.readBigUInt64LE(offset) === (value & LOW_64) &&
    view.readBigUInt64LE(offset + 8) === value >> 64n
  );
}

/** The checksum of the empty body, which every body-less frame carries. */
export const EMPTY_CHECKSUM: Buffer = checksum(new Uint8Array(0));

/** Sixteen zero bytes: the "no checksum / no token" value. */
export const ZERO_CHECKSUM: Buffer = Buffer.alloc(CHECKSUM_SIZE);
