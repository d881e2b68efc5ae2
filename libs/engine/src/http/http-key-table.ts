import { SnapshotInvalidError } from '../engine-snapshot-codec';
import { HTTP_FINGERPRINT_BYTES } from './http-request-body';
import { type HttpResponseRecord } from './http-request';
import { KeyedStore } from '../keyed/keyed-store';

/** One Idempotency-Key the node remembers: the response its request got, and when. */
export interface HttpKeyRecord {
  /** The op of the entry that applied the request. */
  readonly op: number;
  /** That entry's journal time (ns): what retention is counted from. */
  readonly timestamp: bigint;
  /** The request's fingerprint (16 bytes): a retry carries the same one. */
  readonly fingerprint: Buffer;
  readonly status: number;
  /** The exact response body bytes (JSON text, or empty). */
  readonly body: Buffer;
}

/** A remembered key's response, as the engine answers a retry of it. */
export function responseOf(record: HttpKeyRecord): HttpResponseRecord {
  return { status: record.status, body: record.body, op: record.op };
}

/** Why `record` could not keep its promise: a caller broke the table's contract. */
export class HttpKeyTableInvariantError extends Error {
  readonly code = 'HTTP_KEY_TABLE_INVARIANT';
}

/** Format byte of {@link HttpKeyTable.encode}. */
const FORMAT = 2;
const NS_PER_MS = 1_000_000n;

/**
 * The name of the keyed map the key table's records live under in the
 * {@link KeyedStore}. Reserved: every keyed state's map is named
 * `state/map`, with a `/`, and this name has none, so no
 * `@ReplicatedState` can take it; the keyed digest and counts of a
 * snapshot cover it like any map (`--verify` compares it).
 */
export const HTTP_KEYS_MAP = 'once:http-keys';

/**
 * A key's record as the store holds it (JSON): the response, and the key
 * recorded next (absent on the newest), which makes the records a singly
 * linked list in op order.
 */
interface StoredKey {
  readonly op: number;
  /** Journal time (ns), as decimal text: JSON has no 64-bit integer. */
  readonly at: string;
  /** Fingerprint, hex. */
  readonly fp: string;
  readonly status: number;
  /** Body bytes, base64: the bytes exactly, whatever they are. */
  readonly body: string;
  readonly next?: string;
}

/**
 * The Idempotency-Keys of HTTP requests the node remembers, each with the
 * response its request got: part of the replicated state (the applier
 * changes it, a snapshot holds it), so every node and every replay answers
 * a retried key alike. No clock: time is the journal's.
 *
 * The records are keyed records of the node's {@link KeyedStore} (map
 * {@link HTTP_KEYS_MAP}), in LevelDB behind the store's bounded cache, so
 * millions of keys (a day of a busy service's requests) cost no memory and
 * no snapshot time beyond the records changed since the last one. Keys are
 * recorded in op order (entries apply in op order, each key once), which is
 * also journal-time order; each record names the key recorded after it, so
 * the records form a list from the oldest (the head) to the newest (the
 * tail), and both ways of forgetting take keys from the head, one read
 * and one delete each, with no index in memory:
 * - retention ({@link forgetRecordedBefore}): before each entry applies,
 *   keys recorded longer ago than `httpKeyRetentionMs` by that entry's
 *   journal time are forgotten;
 * - the bound ({@link record}, {@link bound}): at most `httpKeysMax` keys;
 *   a new key beyond it forgets the oldest first. That is an early forget
 *   (a retry of that key would apply again): counted in
 *   {@link earlyForgets} for the logs and metrics.
 *
 * What the table itself holds (the snapshot's key-table section,
 * {@link encode}): the head and tail keys, the count, the head's journal
 * time (so an entry that forgets nothing reads nothing) and the op and
 * time of the newest key ever recorded.
 *
 * Invariants (asserted by {@link assertInvariants}, and by `record` for
 * the entry it takes): along the list ops strictly increase and timestamps
 * never decrease; the list from the head has `count` records, ends at the
 * tail, and they are all the map's records; every fingerprint is 16 bytes;
 * the count never exceeds the bound last applied.
 */
export class HttpKeyTable {
  private head: string | undefined;
  private tail: string | undefined;
  private count = 0;
  /** Journal time of the head's record (0 when empty). */
  private headTimestamp = 0n;
  /** Op and timestamp of the newest record ever taken (0 at genesis). */
  private lastOp = 0;
  private lastTimestamp = 0n;
  private earlyForgetsValue = 0;

  /**
   * @param store where the records live: the node's keyed store (the
   *   applier's); default, a private in-memory one (a unit test)
   */
  constructor(private readonly store: KeyedStore = new KeyedStore(undefined)) {}

  /** Keys held now. */
  get size(): number {
    return this.count;
  }

  /**
   * Keys forgotten because of the bound since this table was built (at
   * genesis or from a snapshot): local to this process, not replicated.
   */
  get earlyForgets(): number {
    return this.earlyForgetsValue;
  }

  /** The record of `scopedKey` (see `scopedKeyOf`), if it is remembered: one store read. */
  get(scopedKey: string): HttpKeyRecord | undefined {
    const stored = this.read(scopedKey);
    return stored === undefined ? undefined : recordOf(stored);
  }

  /**
   * Forgets every key recorded before `cutoff` (journal time, ns); returns
   * how many. Reads nothing when the oldest key is recent enough.
   */
  forgetRecordedBefore(cutoff: bigint): number {
    let forgotten = 0;
    while (this.count > 0 && this.headTimestamp < cutoff) {
      this.forgetHead();
      forgotten++;
    }
    return forgotten;
  }

  /**
   * Retention: forgets what is older than `retentionMs` at journal time `now`.
   */
  expire(now: bigint, retentionMs: number): number {
    if (this.count === 0) return 0;
    return this.forgetRecordedBefore(now - BigInt(retentionMs) * NS_PER_MS);
  }

  /**
   * Remembers `record` under `scopedKey`, first forgetting the oldest keys
   * while the table holds `max` or more (early forgets); returns how many
   * were forgotten so. Throws {@link HttpKeyTableInvariantError} for a key
   * already held, an op not after the last one, or an earlier timestamp:
   * the applier looks the key up first and applies in op order.
   */
  record(scopedKey: string, record: HttpKeyRecord, max: number): number {
    if (this.read(scopedKey) !== undefined) {
      throw new HttpKeyTableInvariantError(`the key is recorded already (op ${record.op})`);
    }
    if (record.op <= this.lastOp || record.timestamp < this.lastTimestamp) {
      throw new HttpKeyTableInvariantError(
        `a key recorded at op ${record.op} comes after op ${this.lastOp}: keys are recorded in op and time order`,
      );
    }
    if (record.fingerprint.length !== HTTP_FINGERPRINT_BYTES) {
      throw new HttpKeyTableInvariantError(`the fingerprint at op ${record.op} is not 16 bytes`);
    }
    const forgotten = this.bound(max - 1);
    this.store.set(HTTP_KEYS_MAP, scopedKey, storedOf(record));
    if (this.tail === undefined) {
      this.head = scopedKey;
      this.headTimestamp = record.timestamp;
    } else {
      const tail = this.mustRead(this.tail);
      this.store.set(HTTP_KEYS_MAP, this.tail, { ...tail, next: scopedKey });
    }
    this.tail = scopedKey;
    this.count++;
    this.lastOp = record.op;
    this.lastTimestamp = record.timestamp;
    return forgotten;
  }

  /** Forgets the oldest keys until at most `max` remain (early forgets); returns how many. */
  bound(max: number): number {
    let forgotten = 0;
    while (this.count > Math.max(0, max)) {
      this.forgetHead();
      forgotten++;
    }
    this.earlyForgetsValue += forgotten;
    return forgotten;
  }

  /** Every key with its record, oldest first: a walk over the list (tests, tools; never on the apply path). */
  *entries(): IterableIterator<[string, HttpKeyRecord]> {
    for (let key = this.head; key !== undefined;) {
      const stored = this.mustRead(key);
      yield [key, recordOf(stored)];
      key = stored.next;
    }
  }

  /** Throws {@link HttpKeyTableInvariantError} unless every invariant holds (`max`: the bound in force). */
  assertInvariants(max?: number): void {
    if (max !== undefined && this.count > max) {
      throw new HttpKeyTableInvariantError(`${this.count} keys held over the bound ${max}`);
    }
    const stored = this.store.count(HTTP_KEYS_MAP);
    if (stored !== this.count) {
      throw new HttpKeyTableInvariantError(`${stored} key records stored for ${this.count} keys`);
    }
    let op = 0;
    let timestamp = 0n;
    let walked = 0;
    let last: string | undefined;
    for (const [key, record] of this.entries()) {
      if (walked === 0 && record.timestamp !== this.headTimestamp) {
        throw new HttpKeyTableInvariantError(`the head's time is not that of its record`);
      }
      if (record.op <= op || record.timestamp < timestamp) {
        throw new HttpKeyTableInvariantError(`the key of op ${record.op} is out of order`);
      }
      if (record.fingerprint.length !== HTTP_FINGERPRINT_BYTES) {
        throw new HttpKeyTableInvariantError(`the fingerprint of op ${record.op} is not 16 bytes`);
      }
      op = record.op;
      timestamp = record.timestamp;
      last = key;
      if (++walked > this.count) break;
    }
    if (walked !== this.count || last !== this.tail) {
      throw new HttpKeyTableInvariantError(
        `the list from the head holds ${walked} keys and ends at another than the tail; ${this.count} are counted`,
      );
    }
    if (op > this.lastOp) {
      throw new HttpKeyTableInvariantError(
        `op ${op} is held past the last recorded ${this.lastOp}`,
      );
    }
  }

  /**
   * The table's own part of the snapshot (little-endian); the records are
   * keyed records, written with the snapshot and covered by its keyed
   * digest:
   *
   *     1  format (2)
   *     4  key count
   *     8  op of the newest key ever recorded, 8 its journal time (ns)
   *     8  journal time of the head's record (ns)
   *     4  head key length, head key (utf8), 4 tail key length, tail key
   *        (both empty when no key is held)
   *
   * The same table gives the same bytes (a replay and the live node agree
   * byte for byte).
   */
  encode(): Buffer {
    const head = Buffer.from(this.head ?? '', 'utf8');
    const tail = Buffer.from(this.tail ?? '', 'utf8');
    const out = Buffer.alloc(1 + 4 + 8 + 8 + 8 + 4 + head.length + 4 + tail.length);
    out.writeUInt8(FORMAT, 0);
    out.writeUInt32LE(this.count, 1);
    out.writeBigUInt64LE(BigInt(this.lastOp), 5);
    out.writeBigUInt64LE(this.lastTimestamp, 13);
    out.writeBigUInt64LE(this.headTimestamp, 21);
    out.writeUInt32LE(head.length, 29);
    head.copy(out, 33);
    const at = 33 + head.length;
    out.writeUInt32LE(tail.length, at);
    tail.copy(out, at + 4);
    return out;
  }

  /**
   * A table from {@link encode}'s bytes over `store`, which must already
   * hold the snapshot's records (restored first). Throws
   * SnapshotInvalidError when the bytes do not read as a table, or do not
   * agree with the records' count.
   */
  static decode(bytes: Buffer, store: KeyedStore): HttpKeyTable {
    const table = new HttpKeyTable(store);
    let at = 0;
    const need = (count: number): number => {
      if (at + count > bytes.length) {
        throw new SnapshotInvalidError(`snapshot HTTP key table is truncated at byte ${at}`);
      }
      const from = at;
      at += count;
      return from;
    };
    const format = bytes.readUInt8(need(1));
    if (format !== FORMAT) {
      throw new SnapshotInvalidError(`snapshot HTTP key table format ${format} is not supported`);
    }
    table.count = bytes.readUInt32LE(need(4));
    table.lastOp = Number(bytes.readBigUInt64LE(need(8)));
    table.lastTimestamp = bytes.readBigUInt64LE(need(8));
    table.headTimestamp = bytes.readBigUInt64LE(need(8));
    const headLength = bytes.readUInt32LE(need(4));
    const head = bytes.toString('utf8', need(headLength), at);
    const tailLength = bytes.readUInt32LE(need(4));
    const tail = bytes.toString('utf8', need(tailLength), at);
    if (at !== bytes.length) {
      throw new SnapshotInvalidError('snapshot HTTP key table has trailing bytes');
    }
    if (table.count === 0 ? head !== '' || tail !== '' : head === '' || tail === '') {
      throw new SnapshotInvalidError('snapshot HTTP key table does not name its head and tail');
    }
    if (table.count > 0) {
      table.head = head;
      table.tail = tail;
    }
    if (store.count(HTTP_KEYS_MAP) !== table.count) {
      throw new SnapshotInvalidError(
        `snapshot HTTP key table counts ${table.count} keys and its keyed records ${store.count(HTTP_KEYS_MAP)}`,
      );
    }
    return table;
  }

  private read(scopedKey: string): StoredKey | undefined {
    return this.store.get(HTTP_KEYS_MAP, scopedKey) as StoredKey | undefined;
  }

  private mustRead(scopedKey: string): StoredKey {
    const stored = this.read(scopedKey);
    if (stored === undefined) {
      throw new HttpKeyTableInvariantError(`a key of the list has no record`);
    }
    return stored;
  }

  /** Forgets the oldest key: one read, one delete, and a read of the next one's time. */
  private forgetHead(): void {
    const head = this.head!;
    const stored = this.mustRead(head);
    this.store.set(HTTP_KEYS_MAP, head, undefined);
    this.count--;
    if (this.count === 0 || stored.next === undefined) {
      this.head = undefined;
      this.tail = undefined;
      this.headTimestamp = 0n;
      return;
    }
    this.head = stored.next;
    this.headTimestamp = BigInt(this.mustRead(stored.next).at);
  }
}

function storedOf(record: HttpKeyRecord): StoredKey {
  return {
    op: record.op,
    at: record.timestamp.toString(),
    fp: record.fingerprint.toString('hex'),
    status: record.status,
    body: record.body.toString('base64'),
  };
}

function recordOf(stored: StoredKey): HttpKeyRecord {
  return {
    op: stored.op,
    timestamp: BigInt(stored.at),
    fingerprint: Buffer.from(stored.fp, 'hex'),
    status: stored.status,
    body: Buffer.from(stored.body, 'base64'),
  };
}
