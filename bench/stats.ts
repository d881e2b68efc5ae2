/**
 * The summary statistics of the bench. Medians, not means: on a shared 2-core
 * machine one disturbed run must not move the reported figure.
 */

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The nearest-rank percentile of ascending `sorted` values (`fraction` in
 * (0, 1]): the smallest sample with at least `fraction` of all samples at or
 * below it. NaN when there is no sample.
 */
export function percentileOfSorted(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * The median of `items` by `key` (ascending); of an even count, the upper of
 * the two middle ones: with a key that is worse when higher (p99, or minus
 * a throughput), the worse one.
 */
export function medianBy<T>(items: readonly T[], key: (item: T) => number): T {
  if (items.length === 0) throw new Error('no round was measured');
  return [...items].sort((a, b) => key(a) - key(b))[Math.floor(items.length / 2)];
}
