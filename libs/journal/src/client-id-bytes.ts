import { type ClientId } from '@once/protocol';

const CLIENT_ID_BYTES = 16;

/**
 * Writes a client id that already passed validation as a u128 (16 bytes, low
 * 64 bits first): byte for byte what the protocol's `writeClientId` writes.
 *
 * Why not `writeClientId` itself: it re-validates and parses 16 hex pairs one
 * by one, which costs more than the rest of an entry's encoding; here the hex
 * decode is native and the byte order is fixed by an in-place reversal.
 */
export function writeValidatedClientId(target: Buffer, offset: number, id: ClientId): void {
  // Hex is big-endian (most significant digit first); the u128 is little-endian.
  const written = target.write(id, offset, CLIENT_ID_BYTES, 'hex');
  if (written !== CLIENT_ID_BYTES) {
    throw new Error(`invariant broken: client id ${id} decoded to ${written} bytes`);
  }
  for (let low = offset, high = offset + CLIENT_ID_BYTES - 1; low < high; low++, high--) {
    const byte = target[low];
    target[low] = target[high];
    target[high] = byte;
  }
}
