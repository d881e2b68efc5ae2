import { CliError } from './cli-error';
import { type EntryView } from './entry-view';

/** A page of a running node's `GET /journal` (see the reference service's journal feed). */
export interface FeedPage {
  readonly firstOp: number;
  readonly durableOp: number;
  readonly entries: readonly EntryView[];
}

/** How long one follow request lets the node hold it when nothing is new. */
const FOLLOW_WAIT_MS = 10_000;
/** Entries per follow request. */
const FOLLOW_PAGE_ENTRIES = 1000;
/** Pause before asking again a node that cannot answer (restarting, replaying). */
const RETRY_MS = 1000;

/**
 * The `/journal` address of the node whose operations listener is at `url`:
 * its base (`http://127.0.0.1:9464`) or any path on it (`…/metrics`, as
 * `once status --metrics-url` takes it).
 */
export function journalUrlOf(url: string): URL {
  try {
    return new URL('/journal', url);
  } catch {
    throw new CliError('INVALID_URL', `not an http URL: ${url}`, 2);
  }
}

/** One page: `after` absent means the last `limit` entries. Throws a CliError naming the failure. */
export async function fetchJournalPage(
  base: URL,
  query: { after?: number; limit: number; waitMs?: number },
  signal?: AbortSignal,
  headers: Record<string, string> = {},
): Promise<FeedPage> {
  const url = new URL(base);
  if (query.after !== undefined) url.searchParams.set('after', String(query.after));
  url.searchParams.set('limit', String(query.limit));
  if (query.waitMs) url.searchParams.set('wait_ms', String(query.waitMs));
  let response: Response;
  try {
    const timeout = AbortSignal.timeout((query.waitMs ?? 0) + 15_000);
    response = await fetch(url, {
      headers,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new CliError('NODE_UNREACHABLE', `cannot reach ${base.origin}: ${causeOf(error)}`);
  }
  const body = (await response.json().catch(() => ({}))) as Partial<FeedPage> & {
    code?: string;
    message?: string;
  };
  if (response.ok && Array.isArray(body.entries)) return body as FeedPage;
  if (body.code === 'JOURNAL_FEED_OFF') {
    throw new CliError(
      'JOURNAL_FEED_OFF',
      `${base.origin} does not serve its journal: start the node with ONCE_JOURNAL_FEED=on (--journal-feed on)`,
    );
  }
  if (response.status === 401) {
    throw new CliError(
      'UNAUTHORIZED',
      `${base.origin} refused the credential: give the file of the node's operations token ` +
        '(--operations-token-file, ONCE_OPERATIONS_TOKEN_FILE)',
    );
  }
  if (body.code === 'HOST_NOT_ALLOWED') {
    throw new CliError(
      'HOST_NOT_ALLOWED',
      `${base.origin} does not answer the name ${base.hostname}: use its IP address, or add the name to its ONCE_OPERATIONS_ALLOWED_HOSTS`,
    );
  }
  throw new CliError(
    body.code === 'NOT_OPEN' || body.code === 'FEED_BUSY' ? body.code : 'BAD_ANSWER',
    `${url.href} answered ${response.status}${body.message ? `: ${body.message}` : ''}`,
  );
}

/** What {@link followJournal} reports besides entries. */
export interface FollowEvents {
  entry(view: EntryView): void;
  /** Something a person watching should know (a gap, the node unreachable). */
  note(text: string): void;
}

/**
 * Prints the last `entries` entries of a running node, then every new durable
 * one, until `signal` aborts. A node that restarts or replays is waited for
 * (one note, then a retry every second) and the tail goes on after the last
 * op it printed; ops compacted away before they were read are reported as a gap.
 */
export async function followJournal(
  base: URL,
  entries: number,
  signal: AbortSignal,
  events: FollowEvents,
  headers: Record<string, string> = {},
): Promise<void> {
  let after: number | undefined;
  let waiting = false;
  while (!signal.aborted) {
    let page: FeedPage;
    try {
      page =
        after === undefined
          ? await fetchJournalPage(base, { limit: entries }, signal, headers)
          : await fetchJournalPage(
              base,
              { after, limit: FOLLOW_PAGE_ENTRIES, waitMs: FOLLOW_WAIT_MS },
              signal,
              headers,
            );
    } catch (error) {
      if (signal.aborted) return;
      if (
        !(error instanceof CliError) ||
        !['NODE_UNREACHABLE', 'NOT_OPEN', 'FEED_BUSY'].includes(error.code)
      ) {
        throw error;
      }
      if (!waiting) events.note(`${error.message}; waiting for it`);
      waiting = true;
      await sleep(RETRY_MS, signal);
      continue;
    }
    if (waiting) events.note(`${base.origin} answers again`);
    waiting = false;
    if (after !== undefined && page.firstOp > after + 1) {
      events.note(`ops ${after + 1}..${page.firstOp - 1} were compacted before they were read`);
    }
    for (const view of page.entries) events.entry(view);
    after = page.entries.at(-1)?.op ?? after ?? page.durableOp;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
