/**
 * A 64-bit hash of one keyed record, as two 32-bit lanes (FNV-1a, and a
 * multiply-rotate lane with another seed), for the keyed-state digest: the
 * hash of the text `key`, U+0001, `json`, walked in place (no joined string
 * is built on the apply path).
 *
 * Why not a cryptographic hash: the digest is updated on every keyed write,
 * on the apply path, and guards against accidents (a nondeterministic
 * handler, a lost write), not against an adversary; a native hash call per
 * write costs more than the write. Two lanes make a chance match 2^-64.
 *
 * The lanes are signed 32-bit integers: V8 keeps those inline in an object's
 * fields, where an unsigned one above 2^31 is a separate heap number (one
 * more object per cached record for the collector). The digest's text
 * reads them as unsigned ({@link digestHex}); XOR does not care.
 */
export function hashRecord(key: string, json: string): readonly [number, number] {
  let a = FNV_OFFSET_BASIS;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    a = Math.imul(a ^ unit, FNV_PRIME);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a = Math.imul(a ^ RECORD_SEPARATOR, FNV_PRIME);
  b = Math.imul(b ^ RECORD_SEPARATOR, 0x5bd1e995);
  b ^= b >>> 15;
  for (let i = 0; i < json.length; i++) {
    const unit = json.charCodeAt(i);
    a = Math.imul(a ^ unit, FNV_PRIME);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Final avalanche, so that near-equal texts differ in every bit.
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [a ^ (a >>> 16), b ^ (b >>> 16)];
}

/** Between a record's key and its JSON in the hashed text (U+0001). */
const RECORD_SEPARATOR = 0x0001;

/** FNV-1a's 32-bit offset basis and prime: the digest's first lane, and the keyed cache's table hash. */
export const FNV_OFFSET_BASIS = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;
