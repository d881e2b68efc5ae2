/**
 * The JSON object `bytes` hold (UTF-8), or undefined when they hold no JSON
 * or JSON that is not an object: what every reader of a value in the
 * cluster's KV buckets starts with before it checks its own keys.
 */
export function jsonRecordOf(bytes: Uint8Array): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
