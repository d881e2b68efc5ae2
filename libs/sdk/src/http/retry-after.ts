/**
 * The delay a `Retry-After` header asks for, in ms: delta-seconds (`"1"`) or
 * an HTTP-date (a date in the past is 0). `undefined` when the header is
 * absent or unreadable, so the caller falls back on its own backoff.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its day and month; a bare number like "-1" is no date.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
