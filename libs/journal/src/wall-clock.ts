const NS_PER_MS = 1_000_000n;

/**
 * Wall-clock time in ns since the Unix epoch: `Date.now()` for the
 * milliseconds, `process.hrtime` for the digits below them.
 *
 * The sub-ms part is not aligned with the wall clock, so two readings in the
 * same millisecond can go backwards; the journal clamps timestamps to never
 * decrease, which is the only property it relies on.
 */
export function wallClockNs(): bigint {
  return BigInt(Date.now()) * NS_PER_MS + (process.hrtime.bigint() % NS_PER_MS);
}
