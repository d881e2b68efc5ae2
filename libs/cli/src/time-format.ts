/** ns since the Unix epoch (journal time) as ISO 8601 in UTC, to the millisecond; '-' for 0 (never). */
export function isoTimeOf(timestampNs: bigint): string {
  if (timestampNs <= 0n) return '-';
  return new Date(Number(timestampNs / 1_000_000n)).toISOString();
}

/** A duration for humans: `850 ms`, `12.3 s`, `4 min 05 s`. */
export function durationText(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}
