/**
 * The term of a new leadership: one more than every term this node has seen
 * in the lease key and than `floor`.
 *
 * The lease key expires with its holder (the bucket's TTL), and with it the
 * last term. Every live node watches the key, so the node that takes over
 * has seen the term it follows; a cluster restarted after the key expired
 * would start again at 1 but for `floor`, the highest term known elsewhere
 * (the journal, for instance), which keeps terms increasing across such a
 * restart.
 */
export function nextTerm(highestSeen: number, floor = 0): number {
  for (const [what, value] of [
    ['highest term seen', highestSeen],
    ['term floor', floor],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`${what} must be an integer of at least 0, got ${value}`);
    }
  }
  const next = Math.max(highestSeen, floor) + 1;
  if (!Number.isSafeInteger(next)) throw new RangeError('lease terms are exhausted');
  return next;
}
