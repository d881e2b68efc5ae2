import { type BodyDisclosure, type EntryView, entryView } from '@once/cli/internal';
import { JournalCompactedError } from '@once/journal';
import { type JournalStore } from '@once/journal/internal';
import { setImmediate as yieldToEvents } from 'node:timers/promises';

/** Entries per page at most (`limit`), so one answer stays small whatever a client asks. */
export const JOURNAL_PAGE_ENTRIES_MAX = 1000;
/** Longest a request may wait for new entries (`wait_ms`), below common proxy idle timeouts. */
export const JOURNAL_WAIT_MS_MAX = 30_000;

/** One answer of `GET /journal`: its JSON body. */
export interface JournalPage {
  /** Lowest op the journal still holds (above 1 once compacted). */
  readonly firstOp: number;
  /** Highest durable op when the page was read. */
  readonly durableOp: number;
  /**
   * Durable entries after `after`, oldest first, decoded as the commands
   * declare (see `BodyDisclosure`); fewer than `limit` when their bodies
   * pass {@link JOURNAL_PAGE_BODY_BYTES_MAX}.
   */
  readonly entries: readonly EntryView[];
}

/** What a client asks for. */
export interface JournalPageQuery {
  /**
   * Entries after this op. Absent: the last `limit` entries. Below
   * `firstOp - 1` (compacted away): the page starts at `firstOp`.
   */
  readonly after?: number;
  readonly limit: number;
  /** When nothing is after `after` yet: wait up to this long for a new durable entry. */
  readonly waitMs: number;
}

/**
 * The running node's journal as `once journal tail --follow` reads it. The
 * CLI cannot open a running node's directory (LevelDB's lock), so the node
 * serves its own durable entries, decoded by the same `entryView` the CLI
 * uses on stopped directories: credentials never leave the process.
 *
 * Only durable entries are served: an entry shown by a tail survives a
 * crash. A request with nothing new long-polls (up to `waitMs`), woken by
 * the journal's own durable notice, so a follower sees an entry as soon as it
 * is synced without hammering the node.
 */
export class JournalFeed {
  /**
   * @param disclosure how COMMAND bodies are shown: the code's declarations
   *   (`@Command`'s `sensitive`); default: every COMMAND body withheld.
   */
  constructor(
    private readonly journal: () => JournalStore,
    private readonly disclosure: () => BodyDisclosure = () => ({ kind: 'withheld' }),
  ) {}

  async page(query: JournalPageQuery, signal?: AbortSignal): Promise<JournalPage> {
    const journal = this.journal();
    const from =
      query.after === undefined
        ? Math.max(journal.firstOp, journal.durableOp - query.limit + 1)
        : Math.max(journal.firstOp, query.after + 1);
    await this.waitFor(journal, from, query.waitMs, signal);
    const durableOp = journal.durableOp;
    const to = Math.min(durableOp, from + query.limit - 1);
    try {
      const entries = await readViews(journal, from, to, this.disclosure());
      return { firstOp: journal.firstOp, durableOp, entries };
    } catch (error) {
      // A compaction moved firstOp past `from` meanwhile: serve from the new start.
      if (!(error instanceof JournalCompactedError)) throw error;
      return this.page({ ...query, after: journal.firstOp - 1, waitMs: 0 }, signal);
    }
  }

  /** Resolves once `op` is durable, `waitMs` passed, or `signal` aborted (the client left). */
  private waitFor(
    journal: JournalStore,
    op: number,
    waitMs: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (journal.durableOp >= op || waitMs === 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      // The journal says when a group is durable: no timer polls it meanwhile.
      const unsubscribe = journal.onDurable(() => {
        if (journal.durableOp >= op) done();
      });
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * Entries decoded between two turns of the event loop: many long-polls woken
 * by one commit each decode a page, and none may hold the loop (and the
 * client port's PINGs) for the whole of it.
 */
const DECODES_PER_TURN = 64;

/**
 * Journaled body bytes a page holds at most (past its first entry): a page
 * of 1000 entries of a 1 MB frame each would be a gigabyte to encode in one
 * synchronous step. A shorter page is complete as far as it goes: clients
 * ask again after its last op.
 */
export const JOURNAL_PAGE_BODY_BYTES_MAX = 4 * 1024 * 1024;

/** Ops `from`..`to`, decoded for printing (empty when `to < from`), cut at {@link JOURNAL_PAGE_BODY_BYTES_MAX}. */
async function readViews(
  journal: JournalStore,
  from: number,
  to: number,
  disclosure: BodyDisclosure,
): Promise<EntryView[]> {
  const views: EntryView[] = [];
  if (to < from) return views;
  let bodyBytes = 0;
  for await (const batch of journal.readBatches(from, to - from + 1)) {
    for (const entry of batch) {
      if (entry.op > to) return views;
      bodyBytes += entry.body.length;
      if (views.length > 0 && bodyBytes > JOURNAL_PAGE_BODY_BYTES_MAX) return views;
      views.push(entryView(entry, disclosure));
      if (views.length % DECODES_PER_TURN === 0) await yieldToEvents();
    }
    if (views.length > to - from) return views;
  }
  return views;
}
