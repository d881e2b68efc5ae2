/**
 * True when every byte of `bytes[start..end)` is zero.
 *
 * Used for the protocol's "must be zero" rules (request bytes 96..127, a zero
 * client id, an absent resume token) without allocating a comparison buffer.
 */
export function isZero(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  for (let i = start; i < end; i++) {
    if (bytes[i] !== 0) return false;
  }
  return true;
}
