import { randomBytes } from 'node:crypto';
import { xxh3 } from '@node-rs/xxhash';
import {
  CHECKSUM_SIZE,
  EMPTY_CHECKSUM,
  checksum,
  checksumImplementation,
  checksumInto,
  checksumMatches,
  nativeChecksum,
  whenChecksumReady,
} from './checksum';

/** The wire layout spelled out from the BigInt: low 64 bits LE, then high 64 bits LE. */
function wireBytesOf(data: Uint8Array): Buffer {
  const value = xxh3.xxh128(data);
  const out = Buffer.alloc(CHECKSUM_SIZE);
  out.writeBigUInt64LE(value & ((1n << 64n) - 1n), 0);
  out.writeBigUInt64LE(value >> 64n, 8);
  return out;
}

/** Lengths 0..300 one by one (every XXH3 size class and its edges), then a spread up to 70 KiB. */
function sampleLengths(): number[] {
  const lengths: number[] = [];
  for (let length = 0; length <= 300; length++) lengths.push(length);
  for (let i = 0; i < 200; i++) lengths.push(301 + Math.floor(Math.random() * 8192));
  lengths.push(1024, 4096, 16_383, 16_384, 16_385, 65_536, 70_001);
  return lengths;
}

describe('checksum', () => {
  beforeAll(async () => {
    await whenChecksumReady();
  });

  it('given WebAssembly in Node, when set-up settles, then the WebAssembly hasher answers', async () => {
    expect(await whenChecksumReady()).toBe(true);
    expect(checksumImplementation()).toBe('wasm');
  });

  it('given random inputs of many lengths, when hashed, then the bytes equal the N-API XXH3-128 laid out as a little-endian u128', () => {
    for (const length of sampleLengths()) {
      const data = randomBytes(length);
      const expected = wireBytesOf(data);
      expect(checksum(data)).toEqual(expected);
      expect(nativeChecksum(data)).toEqual(expected);
    }
  });

  it('given views at odd offsets, when hashed into a larger buffer, then only the 16 target bytes change', () => {
    const backing = randomBytes(4096 + 64);
    for (let i = 0; i < 200; i++) {
      const start = Math.floor(Math.random() * 64);
      const data = backing.subarray(start, start + Math.floor(Math.random() * 4096));
      const target = Buffer.alloc(64, 0xaa);
      const offset = 1 + Math.floor(Math.random() * (64 - CHECKSUM_SIZE - 1));
      checksumInto(data, target, offset);
      expect(target.subarray(offset, offset + CHECKSUM_SIZE)).toEqual(wireBytesOf(data));
      expect(target.subarray(0, offset).every((byte) => byte === 0xaa)).toBe(true);
      expect(target.subarray(offset + CHECKSUM_SIZE).every((byte) => byte === 0xaa)).toBe(true);
    }
  });

  it('given a stored checksum, when matched, then only the exact 16 bytes at the offset match', () => {
    const data = randomBytes(200);
    const stored = Buffer.concat([Buffer.alloc(3), wireBytesOf(data), Buffer.alloc(2)]);
    expect(checksumMatches(data, stored, 3)).toBe(true);
    expect(checksumMatches(data, stored, 2)).toBe(false);
    expect(checksumMatches(data, stored, 5)).toBe(false);
    const flipped = Buffer.from(stored);
    flipped[3 + 15] ^= 1;
    expect(checksumMatches(data, flipped, 3)).toBe(false);
    expect(checksumMatches(randomBytes(200), stored, 3)).toBe(false);
  });

  it('given the empty body, when hashed by either hasher, then it is the EMPTY_CHECKSUM constant', () => {
    expect(checksum(new Uint8Array(0))).toEqual(EMPTY_CHECKSUM);
    expect(nativeChecksum(new Uint8Array(0))).toEqual(EMPTY_CHECKSUM);
    expect(EMPTY_CHECKSUM.toString('hex')).toBe(wireBytesOf(new Uint8Array(0)).toString('hex'));
  });
});
