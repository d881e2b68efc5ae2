import { CHECKSUM_SIZE, ZERO_CHECKSUM } from '@once/protocol/internal';
import { isClientId, type ClientId } from '@once/protocol';
import { type CachedReply } from './cached-reply';
import { NO_REPLIES, createCachedReply, createClientEntry, type ClientEntry } from './client-entry';
import { MAX_TIMESTAMP, entryNumbersProblem } from './entry-invariants';
import { TableSnapshotInvalidError } from './table-snapshot-invalid.error';

/** The `v` of every record; bump it for any change of the record's fields or their encoding. */
export const CLIENT_ENTRY_RECORD_VERSION = 1;

/**
 * One session of the client table as a plain JSON value: what the engine keeps under the
 * client id as a keyed record, so that a checkpoint writes the sessions that changed since
 * the last one instead of the whole table (see `ClientTable.takeChanged`).
 *
 * Only JSON types (numbers, strings, arrays), as the keyed records store JSON: the
 * timestamp, a u64 a number cannot hold, is a decimal string; bytes are hex (checksums) or
 * base64 (replies). Like the table snapshot, it stores nothing that can be derived, so a
 * record cannot hold two answers that disagree: the client is the record's key, each
 * reply's request number follows from its place in the ring (the newest answers
 * `watermark`), and `watermarkChecksum` is the newest reply's checksum (zero without one).
 */
export interface ClientEntryRecord {
  /** {@link CLIENT_ENTRY_RECORD_VERSION}. */
  readonly v: number;
  readonly userId: number;
  readonly epoch: number;
  readonly watermark: number;
  readonly latestCommitOp: number;
  /** `latestCommitTimestamp` (ns), in decimal. */
  readonly latestCommitTimestamp: string;
  /**
   * The ring, oldest first: `[requestChecksum as 32 lowercase hex digits, reply as
   * base64]`; the reply at index `i` of `k` answers request `watermark - k + 1 + i`.
   */
  readonly replies: readonly (readonly [string, string])[];
}

/** The record's fields, in the order {@link encodeEntryRecord} writes them. */
const FIELDS: readonly string[] = [
  'v',
  'userId',
  'epoch',
  'watermark',
  'latestCommitOp',
  'latestCommitTimestamp',
  'replies',
];

/**
 * The record of `entry`. Deterministic: equal entries give records whose JSON.stringify
 * output is equal (fields in one order, canonical encodings), so a record can be compared
 * or hashed as text. A reply committed with an encoder is encoded here if it was not yet.
 */
export function encodeEntryRecord(entry: ClientEntry): ClientEntryRecord {
  const replies: (readonly [string, string])[] = [];
  for (const cached of entry.replies) {
    replies.push([cached.requestChecksum.toString('hex'), cached.reply.toString('base64')]);
  }
  return {
    v: CLIENT_ENTRY_RECORD_VERSION,
    userId: entry.userId,
    epoch: entry.epoch,
    watermark: entry.watermark,
    latestCommitOp: entry.latestCommitOp,
    latestCommitTimestamp: entry.latestCommitTimestamp.toString(),
    replies,
  };
}

/**
 * The entry of `client` that `record` (a parsed JSON value, trusted in nothing) describes.
 * Validates what the table snapshot's decoder validates for one entry (the fields' types
 * and ranges, `1 <= epoch <= latestCommitOp`, a reply per request up to the watermark and
 * at least the watermark's) and that every encoding is the one {@link encodeEntryRecord}
 * writes, so a decoded record encodes back to the same JSON. The ring's bound is the
 * table's, checked by `ClientTable.fromEntries`. Every failure is a
 * {@link TableSnapshotInvalidError} naming the client.
 *
 * Replies are decoded into buffers of their own: the entry keeps nothing of `record`.
 */
export function decodeEntryRecord(client: ClientId, record: unknown): ClientEntry {
  const invalid = (problem: string): never => {
    throw new TableSnapshotInvalidError(
      `invalid client table record of client ${String(client)}: ${problem}`,
    );
  };
  if (!isClientId(client)) invalid('the key is not a client id');
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return invalid('not an object');
  }
  const fields = record as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!FIELDS.includes(key)) invalid(`unknown field "${key}"`);
  }
  if (fields.v !== CLIENT_ENTRY_RECORD_VERSION) invalid(`unknown version ${String(fields.v)}`);
  const integer = (name: string): number => {
    const value = fields[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return invalid(`${name} ${String(value)} is not an integer in 0..2^53 - 1`);
    }
    return value;
  };
  const userId = integer('userId');
  const epoch = integer('epoch');
  const watermark = integer('watermark');
  const latestCommitOp = integer('latestCommitOp');
  const latestCommitTimestamp = decodeTimestamp(fields.latestCommitTimestamp, invalid);
  const ring = fields.replies;
  if (!Array.isArray(ring)) return invalid('replies is not an array');
  const problem = entryNumbersProblem(epoch, latestCommitOp, watermark, ring.length, undefined);
  if (problem !== undefined) invalid(problem);

  let replies: readonly CachedReply[] = NO_REPLIES;
  if (ring.length > 0) {
    const decoded: CachedReply[] = [];
    const first = watermark - ring.length + 1;
    for (let index = 0; index < ring.length; index++) {
      const request = first + index;
      const pair: unknown = ring[index];
      if (!Array.isArray(pair) || pair.length !== 2) {
        return invalid(`reply to request ${request} is not a [checksum, reply] pair`);
      }
      const [checksum, reply] = pair as unknown[];
      if (typeof checksum !== 'string' || !CHECKSUM_HEX.test(checksum)) {
        return invalid(`reply to request ${request}: checksum is not 32 lowercase hex digits`);
      }
      if (typeof reply !== 'string') {
        return invalid(`reply to request ${request}: reply is not a string`);
      }
      const bytes = Buffer.from(reply, 'base64');
      // Buffer's base64 decoder skips what it cannot read: only the canonical text round-trips.
      if (bytes.toString('base64') !== reply) {
        return invalid(`reply to request ${request}: reply is not canonical base64`);
      }
      decoded.push(createCachedReply(request, Buffer.from(checksum, 'hex'), bytes, 'handed-over'));
    }
    replies = Object.freeze(decoded);
  }
  return createClientEntry({
    client,
    userId,
    epoch,
    watermark,
    watermarkChecksum:
      replies.length === 0 ? ZERO_CHECKSUM : replies[replies.length - 1].requestChecksum,
    latestCommitOp,
    latestCommitTimestamp,
    replies,
  });
}

const CHECKSUM_HEX = new RegExp(`^[0-9a-f]{${CHECKSUM_SIZE * 2}}$`);
/** A u64 in decimal as `bigint.toString()` writes it: no sign, no leading zero, at most 20 digits. */
const DECIMAL = /^(?:0|[1-9][0-9]{0,19})$/;

function decodeTimestamp(value: unknown, invalid: (problem: string) => never): bigint {
  if (typeof value !== 'string' || !DECIMAL.test(value)) {
    return invalid(`latestCommitTimestamp ${String(value)} is not a decimal u64`);
  }
  const timestamp = BigInt(value);
  if (timestamp > MAX_TIMESTAMP) invalid(`latestCommitTimestamp ${value} exceeds 2^64 - 1`);
  return timestamp;
}
