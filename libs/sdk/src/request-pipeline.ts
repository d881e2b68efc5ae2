import { sdkAssert } from './errors/sdk-assert';
import { type CommandEntry, type LinkTag, type QueryEntry } from './pending-request';

/**
 * The bookkeeping of requests between the caller and the node; no I/O.
 *
 * Commands move through four places, each entry in exactly one:
 * - `waiting`: the queue is full (`queuedMax`); the call waits for room;
 * - `queued`: accepted, not numbered, never sent;
 * - `inFlight`: numbered, possibly sent, not answered, ordered by number;
 * - gone: answered (or withdrawn before it was numbered).
 *
 * Invariants (asserted):
 * - request numbers enter `inFlight` strictly increasing, so iteration order is
 *   number order (the order the node must receive them in);
 * - `queued.length ≤ queuedMax`; `waiting` is non-empty only when `queued` is full;
 * - an entry is numbered exactly while it is in `inFlight`.
 *
 * Queries have their own two lists: pending (to send on the next bound link)
 * and sent (on the current link, answered in the order sent).
 */
export class RequestPipeline {
  private readonly waiting: CommandEntry[] = [];
  private readonly queued: CommandEntry[] = [];
  private readonly inFlight = new Map<number, CommandEntry>();
  private lastNumber = 0;
  private pendingQueries: QueryEntry[] = [];
  private sentQueries: QueryEntry[] = [];

  constructor(
    readonly inFlightMax: number,
    readonly queuedMax: number,
  ) {
    sdkAssert(Number.isInteger(inFlightMax) && inFlightMax >= 1, 'inFlightMax ≥ 1');
    sdkAssert(Number.isInteger(queuedMax) && queuedMax >= 1, 'queuedMax ≥ 1');
  }

  get waitingCount(): number {
    return this.waiting.length;
  }
  get queuedCount(): number {
    return this.queued.length;
  }
  get inFlightCount(): number {
    return this.inFlight.size;
  }
  get queryCount(): number {
    return this.pendingQueries.length + this.sentQueries.length;
  }
  /** Nothing waits, is queued, in flight, or asked. */
  get isEmpty(): boolean {
    return (
      this.waiting.length === 0 &&
      this.queued.length === 0 &&
      this.inFlight.size === 0 &&
      this.queryCount === 0
    );
  }

  // ------------------------------------------------------------- commands

  /** Accepts a new command: queued if there is room, else waiting for room. */
  enqueue(entry: CommandEntry): void {
    sdkAssert(entry.request === 0, 'a new command has no number');
    if (this.queued.length < this.queuedMax && this.waiting.length === 0) this.queued.push(entry);
    else this.waiting.push(entry);
  }

  /** Removes a command that was never numbered (a timeout before sending). */
  withdraw(entry: CommandEntry): boolean {
    if (entry.request !== 0) return false;
    const removed = remove(this.queued, entry) || remove(this.waiting, entry);
    this.refill();
    return removed;
  }

  /**
   * Numbers queued commands into the pipeline while it has room, oldest first,
   * with numbers from `assign`. Returns the entries numbered now.
   */
  numberNext(assign: () => number, durable: boolean): CommandEntry[] {
    const numbered: CommandEntry[] = [];
    while (this.inFlight.size < this.inFlightMax && this.queued.length > 0) {
      const entry = this.queued.shift()!;
      this.admit(entry, assign(), durable);
      numbered.push(entry);
      this.refill();
    }
    return numbered;
  }

  /**
   * Appends a command past every other (the LOGOUT of `close`): numbered now,
   * whatever `inFlightMax` says, after every queued command was numbered.
   */
  numberLast(entry: CommandEntry, assign: () => number, durable: boolean): void {
    sdkAssert(this.queued.length === 0 && this.waiting.length === 0, 'the queue is drained');
    this.admit(entry, assign(), durable);
  }

  /** Puts commands a previous process left in doubt back in flight, under their numbers. */
  adopt(entry: CommandEntry, request: number): void {
    this.admit(entry, request, true);
    entry.everSent = true;
  }

  get(request: number): CommandEntry | undefined {
    return this.inFlight.get(request);
  }

  /** The answered command leaves the pipeline. */
  settle(request: number): CommandEntry | undefined {
    const entry = this.inFlight.get(request);
    if (entry) this.inFlight.delete(request);
    return entry;
  }

  /** Every numbered, unanswered command, in number order. */
  unanswered(): CommandEntry[] {
    return [...this.inFlight.values()];
  }

  oldest(): CommandEntry | undefined {
    return this.inFlight.values().next().value;
  }

  /**
   * The commands to write to `link` now, in number order: durable and not yet
   * written to it, at most `limit`. Stops at the first non-durable one, so a
   * higher number never overtakes a lower one on a link.
   */
  sendable(link: LinkTag, limit = Number.POSITIVE_INFINITY): CommandEntry[] {
    const out: CommandEntry[] = [];
    for (const entry of this.inFlight.values()) {
      if (out.length >= limit || !entry.durable) break;
      if (entry.sentOn !== link) out.push(entry);
    }
    return out;
  }

  /** The link is gone (or the epoch changed): everything in flight must be written again. */
  markAllUnsent(): void {
    for (const entry of this.inFlight.values()) entry.sentOn = undefined;
  }

  /**
   * The session is lost. Commands ever sent are in doubt and leave; commands
   * numbered but never sent lose their number and go back to the head of the
   * queue (they will be numbered afresh under the next session).
   */
  takeInDoubt(): CommandEntry[] {
    const inDoubt: CommandEntry[] = [];
    const unsent: CommandEntry[] = [];
    for (const entry of this.inFlight.values()) {
      if (entry.everSent || entry.kind === 'logout') inDoubt.push(entry);
      else unsent.push(entry);
    }
    this.inFlight.clear();
    this.lastNumber = 0;
    for (const entry of unsent) {
      entry.request = 0;
      entry.durable = false;
      entry.sentOn = undefined;
    }
    this.queued.unshift(...unsent);
    // The queue may now exceed queuedMax by what came back; it drains first.
    return inDoubt;
  }

  /** Empties the waiting and queued lists (the client closes); returns what they held. */
  takeUnnumbered(): CommandEntry[] {
    return [...this.queued.splice(0), ...this.waiting.splice(0)];
  }

  // --------------------------------------------------------------- queries

  addQuery(query: QueryEntry): void {
    this.pendingQueries.push(query);
  }

  /** Removes a query that was never sent (a timeout before sending). */
  withdrawQuery(query: QueryEntry): boolean {
    return remove(this.pendingQueries, query);
  }

  /** The pending queries, now counted as sent on the current link (answers come in this order). */
  takeQueriesToSend(): QueryEntry[] {
    const out = this.pendingQueries;
    this.pendingQueries = [];
    this.sentQueries.push(...out);
    return out;
  }

  /** The oldest query sent on the current link: the one the next query answer is for. */
  shiftSentQuery(): QueryEntry | undefined {
    return this.sentQueries.shift();
  }

  /** `query` was answered "not now" (NOT_BOUND, NOT_READY): it goes again, first. */
  requeueQuery(query: QueryEntry): void {
    if (!query.done) this.pendingQueries.unshift(query);
  }

  /** The link is gone: unanswered queries are sent again on the next one. */
  requeueSentQueries(): void {
    const again = this.sentQueries.filter((query) => !query.done);
    this.sentQueries = [];
    this.pendingQueries.unshift(...again);
  }

  /** Empties both query lists (the client closes); returns the unanswered ones. */
  takeQueries(): QueryEntry[] {
    const all = [...this.sentQueries, ...this.pendingQueries].filter((query) => !query.done);
    this.sentQueries = [];
    this.pendingQueries = [];
    return all;
  }

  // --------------------------------------------------------------- helpers

  private admit(entry: CommandEntry, request: number, durable: boolean): void {
    sdkAssert(
      Number.isSafeInteger(request) && request > this.lastNumber,
      `request ${request} does not follow ${this.lastNumber}`,
    );
    sdkAssert(entry.request === 0 && !this.inFlight.has(request), 'an entry is numbered once');
    entry.request = request;
    entry.durable = durable;
    entry.sentOn = undefined;
    this.lastNumber = request;
    this.inFlight.set(request, entry);
  }

  private refill(): void {
    while (this.queued.length < this.queuedMax && this.waiting.length > 0) {
      this.queued.push(this.waiting.shift()!);
    }
  }
}

function remove<T>(list: T[], item: T): boolean {
  const index = list.indexOf(item);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}
