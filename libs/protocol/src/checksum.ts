import { xxh3 } from '@node-rs/xxhash';
import { createXXHash128, type IHasher } from 'hash-wasm';

/** Size in bytes of every checksum on the wire and on disk (a u128). */
export const CHECKSUM_SIZE = 16;

/**
 * The N-API hasher's 16-byte scratch. Single-threaded use only, never across
 * an await.
 */
const scratch = Buffer.alloc(CHECKSUM_SIZE);
const scratchView = new DataView(scratch.buffer, scratch.byteOffset, CHECKSUM_SIZE);
/** Where {@link checksumMatches} puts the checksum it compares (same rules). */
const computed = new Uint8Array(CHECKSUM_SIZE);

/**
 * The WebAssembly XXH3-128 (hash-wasm), once it is compiled; undefined until
 * then, and for good where WebAssembly is unavailable.
 *
 * Why two implementations of one function: the hot path runs five checksums
 * per request, and a call into the N-API hasher (@node-rs/xxhash) costs about
 * 370 ns, most of it the native call and the BigInt it returns, against about
 * 230 ns for the WebAssembly one. WebAssembly compiles asynchronously, so the
 * native hasher answers the checksums of the first moments (module set-up,
 * golden constants) and stays the fallback. Both compute XXH3-128 with seed 0,
 * so which one answers never changes a byte (checksum.spec.ts compares them).
 */
let wasmHasher: IHasher | undefined;

/** Settles once the WebAssembly hasher is in use (true) or known unusable (false). */
const wasmLoaded: Promise<boolean> = createXXHash128().then(
  (hasher) => {
    wasmHasher = hasher;
    return true;
  },
  () => false,
);

/** Which implementation computes checksums now (see {@link whenChecksumReady}). */
export function checksumImplementation(): 'wasm' | 'native' {
  return wasmHasher === undefined ? 'native' : 'wasm';
}

/**
 * Resolves when checksums are computed by the fastest implementation this
 * process can load; true when that is the WebAssembly one. Nothing needs to
 * wait for it: before it settles, checksums are the same bytes, only slower.
 */
export function whenChecksumReady(): Promise<boolean> {
  return wasmLoaded;
}

/**
 * Writes the XXH3-128 of `data` at `offset` of `target` as a u128 (low 64
 * bits first). hash-wasm gives the canonical big-endian digest, so its 16
 * bytes are written reversed.
 */
function hashInto(data: Uint8Array, target: Uint8Array, offset: number): void {
  const hasher = wasmHasher;
  if (hasher === undefined) {
    nativeHashIntoScratch(data);
    for (let i = 0; i < CHECKSUM_SIZE; i++) target[offset + i] = scratch[i];
    return;
  }
  hasher.init();
  hasher.update(data);
  const digest = hasher.digest('binary');
  for (let i = 0; i < CHECKSUM_SIZE; i++) target[offset + i] = digest[CHECKSUM_SIZE - 1 - i];
}

/**
 * The N-API hasher: `setBigUint64` keeps the low 64 bits of the BigInt by
 * itself, so the u128 is laid out without masking or range checks.
 */
function nativeHashIntoScratch(data: Uint8Array): void {
  const value = xxh3.xxh128(data);
  scratchView.setBigUint64(0, value, true);
  scratchView.setBigUint64(8, value >> 64n, true);
}

/** The N-API XXH3-128 of `data` as 16 wire bytes, whichever hasher is in use (for tests). */
export function nativeChecksum(data: Uint8Array): Buffer {
  nativeHashIntoScratch(data);
  return Buffer.from(scratch);
}

/**
 * XXH3-128 with seed 0 of `data`, written into `target` at `offset` as a u128
 * (low 64 bits first), which is how PROTOCOL.md lays checksums out.
 */
export function checksumInto(data: Uint8Array, target: Uint8Array, offset: number): void {
  hashInto(data, target, offset);
}

/** XXH3-128 of `data` as the 16 bytes that go on the wire. */
export function checksum(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(CHECKSUM_SIZE);
  checksumInto(data, out, 0);
  return out;
}

/** True when the 16 bytes at `offset` of `buffer` are the XXH3-128 of `data`. */
export function checksumMatches(data: Uint8Array, buffer: Uint8Array, offset: number): boolean {
  if (offset < 0 || offset + CHECKSUM_SIZE > buffer.length) return false;
  hashInto(data, computed, 0);
  for (let i = 0; i < CHECKSUM_SIZE; i++) {
    if (buffer[offset + i] !== computed[i]) return false;
  }
  return true;
}

/** The checksum of the empty body, which every body-less frame carries. */
export const EMPTY_CHECKSUM: Buffer = checksum(new Uint8Array(0));

/** Sixteen zero bytes: the "no checksum / no token" value. */
export const ZERO_CHECKSUM: Buffer = Buffer.alloc(CHECKSUM_SIZE);
