import { SnapshotInvalidError } from '../engine-snapshot-codec';
import { HTTP_FINGERPRINT_BYTES } from './http-request-body';
import { type HttpResponseRecord } from './http-request';

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
const FORMAT = 1;
const NS_PER_MS = 1_000_000n;

/**
 * The Idempotency-Keys of HTTP requests the node remembers, each with the
 * response its request got: part of the replicated state (the applier
 * changes it, a snapshot holds it), so every node and every replay answers
 * a retried key alike. Pure data, no clock: time is the journal's.
 *
 * Keys are kept in a Map in op order (entries apply in op order, and each
 * key is recorded once), which is also journal-time order, so both ways of
 * forgetting take keys from the front:
 * - retention ({@link forgetRecordedBefore}): before each entry applies,
 *   keys recorded longer ago than `httpKeyRetentionMs` by that entry's
 *   journal time are forgotten;
 * - the bound ({@link record}, {@link bound}): at most `httpKeysMax` keys;
 *   a new key beyond it forgets the oldest first. That is an early forget
 *   (a retry of that key would apply again): counted in
 *   {@link earlyForgets} for the logs and metrics.
 *
 * Invariants (asserted by {@link assertInvariants}, and by `record` for
 * the entry it takes): ops strictly increase and timestamps never decrease
 * along the Map; every fingerprint is 16 bytes; the size never exceeds the
 * bound last applied.
 */
export class HttpKeyTable {
  private readonly records = new Map<string, HttpKeyRecord>();
  /** Op and timestamp of the newest record ever taken (0 at genesis). */
  private lastOp = 0;
  private lastTimestamp = 0n;
  private earlyForgetsValue = 0;

  /** Keys held now. */
  get size(): number {
    return this.records.size;
  }

  /**
   * Keys forgotten because of the bound since this table was built (at
   * genesis or from a snapshot): local to this process, not replicated.
   */
  get earlyForgets(): number {
    return this.earlyForgetsValue;
  }

  /** The record of `scopedKey` (see `scopedKeyOf`), if it is remembered. */
  get(scopedKey: string): HttpKeyRecord | undefined {
    return this.records.get(scopedKey);
  }

  /**
   * Forgets every key recorded before `cutoff` (journal time, ns); returns
   * how many. O(1) when the oldest key is recent enough.
   */
  forgetRecordedBefore(cutoff: bigint): number {
    let forgotten = 0;
    for (const [scopedKey, record] of this.records) {
      if (record.timestamp >= cutoff) break;
      this.records.delete(scopedKey);
      forgotten++;
    }
    return forgotten;
  }

  /**
   * Retention: forgets what is older than `retentionMs` at journal time `now`.
   */
  expire(now: bigint, retentionMs: number): number {
    if (this.records.size === 0) return 0;
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
    if (this.records.has(scopedKey)) {
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
    this.records.set(scopedKey, record);
    this.lastOp = record.op;
    this.lastTimestamp = record.timestamp;
    return forgotten;
  }

  /** Forgets the oldest keys until at most `max` remain (early forgets); returns how many. */
  bound(max: number): number {
    let forgotten = 0;
    for (const scopedKey of this.records.keys()) {
      if (this.records.size <= max) break;
      this.records.delete(scopedKey);
      forgotten++;
    }
    this.earlyForgetsValue += forgotten;
    return forgotten;
  }

  /** Every key with its record, oldest first. */
  entries(): IterableIterator<[string, HttpKeyRecord]> {
    return this.records.entries();
  }

  /** Throws {@link HttpKeyTableInvariantError} unless every invariant holds (`max`: the bound in force). */
  assertInvariants(max?: number): void {
    if (max !== undefined && this.records.size > max) {
      throw new HttpKeyTableInvariantError(`${this.records.size} keys held over the bound ${max}`);
    }
    let op = 0;
    let timestamp = 0n;
    for (const record of this.records.values()) {
      if (record.op <= op || record.timestamp < timestamp) {
        throw new HttpKeyTableInvariantError(`the key of op ${record.op} is out of order`);
      }
      if (record.fingerprint.length !== HTTP_FINGERPRINT_BYTES) {
        throw new HttpKeyTableInvariantError(`the fingerprint of op ${record.op} is not 16 bytes`);
      }
      op = record.op;
      timestamp = record.timestamp;
    }
    if (op > this.lastOp) {
      throw new HttpKeyTableInvariantError(
        `op ${op} is held past the last recorded ${this.lastOp}`,
      );
    }
  }

  /**
   * The table as snapshot bytes (little-endian), oldest key first:
   *
   *     1  format (1)
   *     4  key count, then per key:
   *        4 scoped key length, scoped key (utf8),
   *        8 op, 8 journal timestamp (ns), 16 fingerprint,
   *        2 status, 4 body length, body
   *
   * The same keys in the same order give the same bytes (a replay and the
   * live node agree byte for byte).
   */
  encode(): Buffer {
    const keys: Buffer[] = [];
    let size = 1 + 4;
    for (const [scopedKey, record] of this.records) {
      const key = Buffer.from(scopedKey, 'utf8');
      keys.push(key);
      size += 4 + key.length + 8 + 8 + HTTP_FINGERPRINT_BYTES + 2 + 4 + record.body.length;
    }
    const out = Buffer.alloc(size);
    out.writeUInt8(FORMAT, 0);
    out.writeUInt32LE(this.records.size, 1);
    let at = 5;
    let index = 0;
    for (const record of this.records.values()) {
      const key = keys[index++];
      out.writeUInt32LE(key.length, at);
      key.copy(out, at + 4);
      at += 4 + key.length;
      out.writeBigUInt64LE(BigInt(record.op), at);
      out.writeBigUInt64LE(record.timestamp, at + 8);
      record.fingerprint.copy(out, at + 16);
      at += 16 + HTTP_FINGERPRINT_BYTES;
      out.writeUInt16LE(record.status, at);
      out.writeUInt32LE(record.body.length, at + 2);
      record.body.copy(out, at + 6);
      at += 6 + record.body.length;
    }
    return out;
  }

  /**
   * A table from {@link encode}'s bytes (copied: the table keeps no view of
   * them). Throws SnapshotInvalidError when they do not read as one, or
   * break an invariant.
   */
  static decode(bytes: Buffer): HttpKeyTable {
    const table = new HttpKeyTable();
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
    const count = bytes.readUInt32LE(need(4));
    for (let i = 0; i < count; i++) {
      const keyLength = bytes.readUInt32LE(need(4));
      const scopedKey = bytes.toString('utf8', need(keyLength), at);
      const op = Number(bytes.readBigUInt64LE(need(8)));
      const timestamp = bytes.readBigUInt64LE(need(8));
      const fingerprintAt = need(HTTP_FINGERPRINT_BYTES);
      const fingerprint = Buffer.from(bytes.subarray(fingerprintAt, at));
      const status = bytes.readUInt16LE(need(2));
      const bodyLength = bytes.readUInt32LE(need(4));
      const bodyAt = need(bodyLength);
      const body = Buffer.from(bytes.subarray(bodyAt, at));
      if (table.records.has(scopedKey)) {
        throw new SnapshotInvalidError(`snapshot HTTP key table holds a key twice (op ${op})`);
      }
      if (op <= table.lastOp || timestamp < table.lastTimestamp) {
        throw new SnapshotInvalidError(`snapshot HTTP key table is out of order at op ${op}`);
      }
      table.records.set(scopedKey, { op, timestamp, fingerprint, status, body });
      table.lastOp = op;
      table.lastTimestamp = timestamp;
    }
    if (at !== bytes.length) {
      throw new SnapshotInvalidError('snapshot HTTP key table has trailing bytes');
    }
    return table;
  }
}
