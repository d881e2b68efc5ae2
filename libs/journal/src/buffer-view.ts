/**
 * `bytes` as a Buffer over the same memory (no copy), so callers can use the
 * Buffer read/write methods on any Uint8Array LevelDB or a caller hands in.
 */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
