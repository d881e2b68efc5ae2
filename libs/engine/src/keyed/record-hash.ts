/**
 * A 64-bit hash of a string, as two 32-bit lanes (FNV-1a, and a
 * multiply-rotate lane with another seed), for the keyed-state digest.
 *
 * Why not a cryptographic hash: the digest is updated on every keyed write,
 * on the apply path, and guards against accidents (a nondeterministic
 * handler, a lost write), not against an adversary; a native hash call per
 * write costs more than the write. Two lanes make a chance match 2^-64.
 */
export function hashRecord(text: string): readonly [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Final avalanche, so that near-equal texts differ in every bit.
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  b = Math.imul(b ^ (b >>> 16), 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [(a ^ (a >>> 16)) >>> 0, (b ^ (b >>> 16)) >>> 0];
}
