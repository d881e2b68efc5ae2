import {
  JOURNAL_PAGE_ENTRIES_MAX,
  JOURNAL_WAIT_MS_MAX,
  type JournalPageQuery,
} from './journal-feed';

/** `limit` when the client gives none. */
const DEFAULT_PAGE_ENTRIES = 100;

/**
 * The query of `GET /journal?after=OP&limit=N&wait_ms=MS`, or a message
 * saying which parameter is wrong and what it takes. Every parameter is
 * optional: no `after` is the last `limit` entries, no `wait_ms` answers at once.
 */
export function journalQueryOf(params: URLSearchParams): JournalPageQuery | string {
  const after = integerParam(params, 'after', 0, Number.MAX_SAFE_INTEGER);
  const limit = integerParam(params, 'limit', 1, JOURNAL_PAGE_ENTRIES_MAX);
  const waitMs = integerParam(params, 'wait_ms', 0, JOURNAL_WAIT_MS_MAX);
  for (const value of [after, limit, waitMs]) if (typeof value === 'string') return value;
  return {
    after: after as number | undefined,
    limit: (limit as number | undefined) ?? DEFAULT_PAGE_ENTRIES,
    waitMs: (waitMs as number | undefined) ?? 0,
  };
}

function integerParam(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined | string {
  const text = params.get(name);
  if (text === null) return undefined;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  return `${name} must be an integer from ${min} to ${max}`;
}
