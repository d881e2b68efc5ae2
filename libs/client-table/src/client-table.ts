import * as protocol from '@once/protocol/internal';
import * as wire from '@once/protocol';
import { type ClientId } from '@once/protocol';
import { type ApplicableResult } from './applicable-result';
import { type CachedReply, type ReplyEncoder, type ReplyOwnership } from './cached-reply';
import { type CheckResult } from './check-result';
import {
  NO_REPLIES,
  createCachedReply,
  createClientEntry,
  type ClientEntry,
  type MutableClientEntry,
} from './client-entry';
import { type ClientTableHeader } from './client-table-header';
import {
  isTableLimit,
  validateTableOptions,
  type ClientTableOptions,
} from './client-table-options';
import { MAX_TIMESTAMP, entryProblem } from './entry-invariants';
import { compareEvictionOrder } from './eviction-order';
import { type RegisterResult } from './register-result';
import { tableAssert } from './table-assert';
import { TableSnapshotInvalidError } from './table-snapshot-invalid.error';
import { decodeTableSnapshot, encodeTableSnapshot } from './table-snapshot-codec';

/**
 * The protocol helpers the table's checks use, read from the package once: in the built CommonJS a
 * named import from another package is read through a getter of the package's index at every use,
 * and committing a reply runs per request.
 */
const { CHECKSUM_SIZE, ZERO_CHECKSUM } = protocol;
const { isClientId } = wire;

const NEW: CheckResult = Object.freeze({ kind: 'new' });
const NO_SESSION: CheckResult = Object.freeze({ kind: 'no-session' });
const INVALID_REQUEST: CheckResult = Object.freeze({ kind: 'invalid-request' });
const IN_FLIGHT: CheckResult = Object.freeze({ kind: 'in-flight' });

/**
 * The client table of PROTOCOL.md: one entry per session, with its epoch, its watermark
 * and the replies of its last `ring` committed requests.
 *
 * The table is a projection of the journal. The engine calls the `commit*` methods,
 * {@link remove}, {@link setLimits} and {@link expireBefore} only when a journal entry is
 * applied, in op order, live and at replay alike; the table uses no clock, no randomness
 * and no iteration order but its own, so it is a pure function of those calls and replay
 * rebuilds it exactly. The gateway calls {@link check}, which never mutates.
 *
 * Eviction order without a heap: every commit sets its entry's `latestCommitOp` to the op
 * being applied, the largest so far, and moves the entry to the end of the `Map`. So the
 * Map's insertion order is ascending (latestCommitOp, client id): the eviction victim is
 * its first key and, as timestamps never decrease with ops, expiry is a scan from the head
 * that stops at the first live entry.
 *
 * Persistence, two ways: {@link snapshot} / {@link restore} write and read the whole table
 * as one value; or, for a table too large to write whole at every checkpoint,
 * {@link trackChanges} / {@link takeChanged} name the sessions changed since the last
 * checkpoint, each written as its own record (see `encodeEntryRecord`), with the
 * {@link header}, and {@link fromEntries} rebuilds the table from those records at boot.
 */
export class ClientTable {
  /**
   * Invariant: iteration order is strictly ascending (latestCommitOp, client id), and
   * latestCommitTimestamp is non-decreasing in that order; `size <= capacity`.
   */
  private readonly table = new Map<ClientId, ClientEntry>();
  private limitCapacity: number;
  private limitRing: number;
  /**
   * Highest op given to a commit (after a restore: the highest latestCommitOp in the
   * snapshot). Invariant: every entry's latestCommitOp <= latestOp; a commit needs op > latestOp.
   */
  private latestOp = 0;
  /** Timestamp of `latestOp`. Invariant: commits never go back in time. */
  private latestTimestamp = 0n;
  /**
   * Clients whose entry was created, changed or removed since the last {@link takeChanged},
   * each with whether it had an entry then (so its record exists);
   * undefined until {@link trackChanges}, so that a table nobody persists record by record
   * grows no set.
   */
  private changed: Map<ClientId, boolean> | undefined;

  constructor(options: ClientTableOptions) {
    validateTableOptions(options);
    this.limitCapacity = options.capacity;
    this.limitRing = options.ring;
  }

  /** Maximum number of entries. */
  get capacity(): number {
    return this.limitCapacity;
  }

  /** Replies cached per entry. */
  get ring(): number {
    return this.limitRing;
  }

  /** Number of entries (sessions). */
  get size(): number {
    return this.table.size;
  }

  /** The entry of `client`: an immutable value, never changed by later commits. */
  get(client: ClientId): ClientEntry | undefined {
    return this.table.get(client);
  }

  /**
   * PROTOCOL.md's COMMAND table, row by row, in its order. Never mutates.
   *
   * `highestAdmitted` is the session's highest request number admitted by the gateway
   * but maybe not committed yet; it defaults to the watermark (after a restart nothing
   * is in flight). The gateway passes it so that requests in flight are told apart from
   * new ones and gaps. A `duplicate` hands out the cached reply buffer itself: write it,
   * never change it. Asserts (TABLE_INVARIANT) a 16-byte `requestChecksum` and
   * `highestAdmitted >= watermark`. `session` and `request` may be any u64 as read from a
   * peer's header (rounded above 2^53): they only need to compare correctly.
   */
  check(
    client: ClientId,
    session: number,
    request: number,
    requestChecksum: Uint8Array,
    highestAdmitted?: number,
  ): CheckResult {
    tableAssert(requestChecksum.length === CHECKSUM_SIZE, 'requestChecksum must be 16 bytes');
    const entry = this.table.get(client);
    // Row: no entry for client.
    if (entry === undefined) return NO_SESSION;
    const { epoch, watermark } = entry;
    // Row: session < entry epoch (fenced).
    if (session < epoch) return { kind: 'session-too-low', epoch, watermark };
    // Row: session > entry epoch.
    if (session > epoch) return { kind: 'epoch-ahead', epoch, watermark };
    // Row: request = 0.
    if (request === 0) return INVALID_REQUEST;
    const admitted = highestAdmitted ?? watermark;
    tableAssert(
      Number.isSafeInteger(admitted) && admitted >= watermark,
      `client ${client}: highestAdmitted ${admitted} below watermark ${watermark}`,
    );
    if (request <= watermark) {
      const cached = cachedReply(entry, request);
      // Row: request <= watermark, no longer cached.
      if (cached === undefined) return { kind: 'already-applied', watermark };
      // Row: request <= watermark, cached, same checksum_body. An entry that
      // kept no checksum (all zero: a command whose body holds a secret) is
      // matched by its number alone: nothing on disk may identify its body.
      if (
        cached.requestChecksum.equals(requestChecksum) ||
        protocol.ZERO_CHECKSUM.equals(cached.requestChecksum)
      ) {
        return { kind: 'duplicate', reply: cached.reply };
      }
      // Row: request <= watermark, cached, other checksum_body.
      return { kind: 'conflict', watermark };
    }
    // Row: watermark < request < next expected (in flight).
    if (request <= admitted) return IN_FLIGHT;
    // Row: request = next expected.
    if (request === admitted + 1) return NEW;
    // Row: request > next expected.
    return { kind: 'gap', watermark, nextExpected: admitted + 1 };
  }

  /**
   * A REGISTER applied at `op` (its epoch). See PROTOCOL.md, "REGISTER":
   * - an entry of the same user: a resume; the epoch moves to `op`, the watermark and the
   *   cached replies stay, and connections of the previous epoch are fenced;
   * - an entry of another user: nothing changes (`owned-by-other-user`);
   * - no entry: a new one (watermark 0); at capacity, the entry first in eviction order
   *   (lowest latestCommitOp, ties lowest client id) is evicted first and returned.
   *
   * Epochs only grow: asserts `op` is above every op given to a commit so far (a refused
   * REGISTER counts too) and the timestamp does not go back (TABLE_INVARIANT).
   */
  commitRegister(op: number, timestamp: bigint, client: ClientId, userId: number): RegisterResult {
    this.assertCommit(op, timestamp);
    tableAssert(isClientId(client), `not a client id: ${String(client)}`);
    tableAssert(Number.isSafeInteger(userId) && userId >= 0, `bad userId ${userId}`);
    this.latestOp = op;
    this.latestTimestamp = timestamp;

    const existing = this.table.get(client);
    if (existing !== undefined) {
      if (existing.userId !== userId) {
        return { kind: 'owned-by-other-user', ownerUserId: existing.userId };
      }
      if (this.changed !== undefined) this.noteChange(client, true);
      this.table.delete(client);
      this.table.set(
        client,
        createClientEntry({
          ...existing,
          epoch: op,
          latestCommitOp: op,
          latestCommitTimestamp: timestamp,
        }),
      );
      return {
        kind: 'registered',
        epoch: op,
        watermark: existing.watermark,
        created: false,
        previousEpoch: existing.epoch,
        evicted: undefined,
      };
    }

    tableAssert(this.table.size <= this.limitCapacity, 'table above capacity');
    const evicted = this.table.size === this.limitCapacity ? this.evictFirst() : undefined;
    if (this.changed !== undefined) this.noteChange(client, false);
    this.table.set(
      client,
      createClientEntry({
        client,
        userId,
        epoch: op,
        watermark: 0,
        watermarkChecksum: ZERO_CHECKSUM,
        latestCommitOp: op,
        latestCommitTimestamp: timestamp,
        replies: NO_REPLIES,
      }),
    );
    return {
      kind: 'registered',
      epoch: op,
      watermark: 0,
      created: true,
      previousEpoch: undefined,
      evicted,
    };
  }

  /**
   * A COMMAND's reply applied at `op`: the watermark moves to `request` and the reply is
   * cached, the oldest beyond `ring` dropped. The engine calls it only after
   * {@link applicable} said `ok`; anything else is an invariant failure. The table caches a
   * copy of both buffers (see createCachedReply), so the caller keeps its own; with
   * `ownership` `'handed-over'` it may keep the reply buffer itself instead.
   */
  commitReply(
    op: number,
    timestamp: bigint,
    client: ClientId,
    session: number,
    request: number,
    requestChecksum: Buffer,
    reply: Buffer | ReplyEncoder,
    ownership: ReplyOwnership = 'copied',
  ): void {
    this.assertCommit(op, timestamp);
    const entry = this.table.get(client);
    tableAssert(entry !== undefined, () => `commitReply: no entry for client ${client}`);
    tableAssert(
      session === entry.epoch,
      () => `commitReply: client ${client} session ${session} !== epoch ${entry.epoch}`,
    );
    tableAssert(
      request === entry.watermark + 1,
      () =>
        `commitReply: client ${client} request ${request} !== watermark + 1 (${entry.watermark + 1})`,
    );
    tableAssert(
      requestChecksum instanceof Uint8Array && requestChecksum.length === CHECKSUM_SIZE,
      'commitReply: requestChecksum must be 16 bytes',
    );
    tableAssert(
      reply instanceof Uint8Array || typeof reply === 'function',
      'commitReply: reply must be bytes or an encoder of them',
    );
    const previous = entry.replies;
    tableAssert(previous.length <= this.limitRing, () => `client ${client}: ring above limit`);
    this.latestOp = op;
    this.latestTimestamp = timestamp;

    // In place (the hot path): the ring drops its oldest beyond `ring`, the
    // entry moves to the end of the eviction order.
    const cached = createCachedReply(request, requestChecksum, reply, ownership);
    const live = entry as MutableClientEntry;
    const replies =
      previous === NO_REPLIES || Object.isFrozen(previous)
        ? [...previous]
        : (previous as CachedReply[]);
    while (replies.length >= this.limitRing) replies.shift();
    replies.push(cached);
    live.replies = replies;
    live.watermark = request;
    live.watermarkChecksum = cached.requestChecksum;
    live.latestCommitOp = op;
    live.latestCommitTimestamp = timestamp;
    this.table.delete(client);
    this.table.set(client, live);
    if (this.changed !== undefined) this.noteChange(client, true);
  }

  /**
   * Whether a COMMAND or LOGOUT admitted under `(session, request)` may be applied now:
   * the entry exists, its epoch is `session` and `request` is watermark + 1. Otherwise the
   * reason, named as the {@link CheckResult} rows ('not-next' when the number is not
   * watermark + 1). The engine asks this at apply time, as the table may have changed
   * since the gateway admitted the request.
   */
  applicable(client: ClientId, session: number, request: number): ApplicableResult {
    const entry = this.table.get(client);
    if (entry === undefined) return 'no-session';
    if (session < entry.epoch) return 'session-too-low';
    if (session > entry.epoch) return 'epoch-ahead';
    if (request !== entry.watermark + 1) return 'not-next';
    return 'ok';
  }

  /** LOGOUT (or any other removal) applied: removes and returns the entry of `client`. */
  remove(client: ClientId): ClientEntry | undefined {
    const entry = this.table.get(client);
    if (entry !== undefined) {
      this.table.delete(client);
      if (this.changed !== undefined) this.noteChange(client, true);
    }
    return entry;
  }

  /**
   * New limits applied (a settings change recorded in the journal). Evicts entries in
   * eviction order until `size <= capacity`, then trims every remaining ring to its newest
   * `ring` replies (the watermark's reply is always kept). Returns the evicted entries,
   * in eviction order, as they were.
   */
  setLimits(options: ClientTableOptions): ClientEntry[] {
    validateTableOptions(options);
    this.limitCapacity = options.capacity;
    this.limitRing = options.ring;
    const evicted: ClientEntry[] = [];
    while (this.table.size > this.limitCapacity) evicted.push(this.evictFirst());
    const ring = this.limitRing;
    for (const entry of this.table.values()) {
      if (entry.replies.length <= ring) continue;
      if (this.changed !== undefined) this.noteChange(entry.client, true);
      // Map.set on a present key keeps its place: the eviction order is untouched.
      this.table.set(
        entry.client,
        createClientEntry({
          ...entry,
          replies: Object.freeze(entry.replies.slice(entry.replies.length - ring)),
        }),
      );
    }
    return evicted;
  }

  /**
   * Sessions idle past their lifetime: removes and returns, oldest first, every entry whose
   * latestCommitTimestamp < `cutoffTimestamp` (ns). Costs O(expired): timestamps are
   * non-decreasing in eviction order, so the scan stops at the first entry that stays.
   */
  expireBefore(cutoffTimestamp: bigint): ClientEntry[] {
    tableAssert(typeof cutoffTimestamp === 'bigint', 'cutoffTimestamp must be a bigint');
    const expired: ClientEntry[] = [];
    for (const entry of this.table.values()) {
      if (entry.latestCommitTimestamp >= cutoffTimestamp) break;
      this.table.delete(entry.client);
      if (this.changed !== undefined) this.noteChange(entry.client, true);
      expired.push(entry);
    }
    return expired;
  }

  /**
   * The entries in eviction order (lowest latestCommitOp first, ties lowest client id).
   * A live iterator of the table's Map: removing entries while iterating is safe.
   */
  entries(): IterableIterator<ClientEntry> {
    return this.table.values();
  }

  /**
   * Deterministic bytes of the whole table: limits, entries, cached replies (layout on
   * {@link encodeTableSnapshot}). Equal tables give equal bytes, whatever their history.
   */
  snapshot(): Buffer {
    const entries: ClientEntry[] = [];
    let previous: ClientEntry | undefined;
    for (const entry of this.table.values()) {
      tableAssert(
        previous === undefined || compareEvictionOrder(previous, entry) < 0,
        `entries out of eviction order at client ${entry.client}`,
      );
      entries.push(entry);
      previous = entry;
    }
    return encodeTableSnapshot({ capacity: this.limitCapacity, ring: this.limitRing, entries });
  }

  /**
   * The table a {@link snapshot} describes. Validates the bytes; malformed input throws
   * {@link TableSnapshotInvalidError} (code 'TABLE_SNAPSHOT_INVALID'). Entries are put back
   * in eviction order, ties on latestCommitOp broken by the lowest client id.
   */
  static restore(bytes: Uint8Array): ClientTable {
    const snapshot = decodeTableSnapshot(bytes);
    const table = new ClientTable({ capacity: snapshot.capacity, ring: snapshot.ring });
    for (const entry of snapshot.entries) {
      table.table.set(entry.client, entry);
      // Sorted by op, with timestamps non-decreasing: the last entry holds both maxima.
      table.latestOp = entry.latestCommitOp;
      table.latestTimestamp = entry.latestCommitTimestamp;
    }
    return table;
  }

  /**
   * From now on, notes every client whose entry a mutation creates, changes or removes
   * (commits, resumes, evictions, removals, ring trims, expiries), for {@link takeChanged}.
   * Off by default: a table that is not persisted record by record must not grow a set.
   * Entries present before the call are not noted: a caller whose records do not describe
   * the table yet writes all of {@link entries} once. Calling it again changes nothing.
   */
  trackChanges(): void {
    this.changed ??= new Map();
  }

  /**
   * The clients noted since the last call (see {@link trackChanges}), in ascending order,
   * and forgets them. For each, the entry {@link get} returns now is its record's new value,
   * or none (the record is deleted); a client created and removed in between is named too.
   * The order is that of the client ids, not of the changes, so equal tables with equal
   * histories since the last call give equal lists. Empty when tracking is off.
   */
  takeChanged(): ClientId[] {
    return this.takeChanges().map(([client]) => client);
  }

  /**
   * {@link takeChanged}, each client with whether it had an entry at the previous call
   * (or when tracking began): false means no record of it was written yet, so a caller
   * that keeps records need not look for one.
   */
  takeChanges(): Array<readonly [client: ClientId, existed: boolean]> {
    const changed = this.changed;
    if (changed === undefined || changed.size === 0) return [];
    // Fixed-width lowercase hex: string order is numeric order.
    const clients = [...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    changed.clear();
    return clients;
  }

  /** Notes `client` as changed; only its first change since the last take says whether it existed. */
  private noteChange(client: ClientId, existed: boolean): void {
    const changed = this.changed!;
    if (!changed.has(client)) changed.set(client, existed);
  }

  /** The limits and size of the table, kept with its per-entry records (see {@link fromEntries}). */
  header(): ClientTableHeader {
    return { capacity: this.limitCapacity, ring: this.limitRing, size: this.table.size };
  }

  /**
   * The table that `header` and `entries` (any order, e.g. the records' key order, each
   * from `decodeEntryRecord`) describe: equal to the table they were taken from,
   * snapshot for snapshot. Entries are put back in eviction order (ascending latestCommitOp,
   * ties lowest client id) and the op and time bounds of later commits are set as
   * {@link restore} sets them.
   *
   * Validates what {@link restore} validates of a snapshot: limits in 1..2^32-1, as many
   * entries as `header.size`, no more than capacity, every entry's invariants (see
   * {@link ClientEntry}) with at most `ring` replies, no client twice, timestamps
   * non-decreasing in eviction order. Any violation (a lost or extra record, a record
   * written under another header) throws {@link TableSnapshotInvalidError}. The entries
   * are copied: the table shares no mutable state with the caller.
   */
  static fromEntries(header: ClientTableHeader, entries: Iterable<ClientEntry>): ClientTable {
    const invalid = (problem: string): never => {
      throw new TableSnapshotInvalidError(`invalid client table records: ${problem}`);
    };
    if (typeof header !== 'object' || header === null) return invalid('header is not an object');
    const { capacity, ring, size } = header;
    if (!isTableLimit(capacity)) invalid(`header capacity ${String(capacity)}`);
    if (!isTableLimit(ring)) invalid(`header ring ${String(ring)}`);
    if (size > capacity) invalid(`header size ${size} exceeds capacity ${capacity}`);

    const sorted: MutableClientEntry[] = [];
    for (const entry of entries) {
      // Checked before the entry, so a runaway iterable stops at the first entry too many
      // (and at the first one when size is not a number: hence not `>=`).
      if (!(sorted.length < size)) invalid(`more entries than the header's size ${size}`);
      const problem = entryProblem(entry, ring);
      if (problem !== undefined) invalid(`client ${String(entry?.client)}: ${problem}`);
      const copy = createClientEntry(entry);
      // The table changes an unfrozen ring in place (commitReply): never the caller's.
      if (!Object.isFrozen(copy.replies)) copy.replies = Object.freeze([...copy.replies]);
      sorted.push(copy);
    }
    if (sorted.length !== size) invalid(`${sorted.length} entries, the header says ${size}`);
    sorted.sort(compareEvictionOrder);

    const table = new ClientTable({ capacity, ring });
    let previous: ClientEntry | undefined;
    for (const entry of sorted) {
      if (previous !== undefined && previous.latestCommitTimestamp > entry.latestCommitTimestamp) {
        invalid(`client ${entry.client}: timestamps decrease in op order`);
      }
      // Sorted by op, two entries of one client need not be neighbours: the Map tells.
      if (table.table.has(entry.client)) invalid(`duplicate client ${entry.client}`);
      table.table.set(entry.client, entry);
      // Sorted by op, with timestamps non-decreasing: the last entry holds both maxima.
      table.latestOp = entry.latestCommitOp;
      table.latestTimestamp = entry.latestCommitTimestamp;
      previous = entry;
    }
    return table;
  }

  /** Asserts the journal order of a commit: ops strictly grow, timestamps never decrease. */
  private assertCommit(op: number, timestamp: bigint): void {
    tableAssert(
      Number.isSafeInteger(op) && op > this.latestOp,
      () => `op ${op} must be an integer above the latest op ${this.latestOp}`,
    );
    tableAssert(
      typeof timestamp === 'bigint' &&
        timestamp >= this.latestTimestamp &&
        timestamp <= MAX_TIMESTAMP,
      () => `timestamp ${String(timestamp)} must be a u64 not below ${this.latestTimestamp}`,
    );
  }

  /** Removes and returns the first entry in eviction order. */
  private evictFirst(): ClientEntry {
    const first = this.table.values().next();
    tableAssert(first.done !== true, 'eviction from an empty table');
    this.table.delete(first.value.client);
    if (this.changed !== undefined) this.noteChange(first.value.client, true);
    return first.value;
  }
}

/** The cached reply of `request` (≤ watermark), if the ring still holds it. O(1). */
function cachedReply(entry: ClientEntry, request: number): CachedReply | undefined {
  // The ring holds consecutive requests ending at the watermark.
  const index = entry.replies.length - 1 - (entry.watermark - request);
  if (index < 0) return undefined;
  const cached: CachedReply | undefined = entry.replies[index];
  tableAssert(
    cached !== undefined && cached.request === request,
    `client ${entry.client}: ring out of sequence at request ${request}`,
  );
  return cached;
}
