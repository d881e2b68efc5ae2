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
