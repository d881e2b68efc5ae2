import { createHash } from 'node:crypto';
import {
  CHECKSUM_SIZE,
  ZERO_CHECKSUM,
  readClientId,
  readU64,
  writeClientId,
  writeU64,
} from '@once/protocol/internal';
import { type ClientId } from '@once/protocol';
import { type CachedReply } from './cached-reply';
import { NO_REPLIES, createCachedReply, createClientEntry, type ClientEntry } from './client-entry';
import { entryNumbersProblem } from './entry-invariants';
import { compareEvictionOrder } from './eviction-order';
import { TableInvariantError } from './table-invariant.error';
import { TableSnapshotInvalidError } from './table-snapshot-invalid.error';

/**
 * The state a snapshot carries: the limits and every entry with every cached reply.
 * Nothing else: two tables with equal entries and limits are equal, whatever their history.
 */
export interface TableSnapshot {
  readonly capacity: number;
  readonly ring: number;
  /** In eviction order when encoding; {@link decodeTableSnapshot} returns them sorted so. */
  readonly entries: readonly ClientEntry[];
}

/** The first byte of every snapshot; bump it for any layout change. */
export const TABLE_SNAPSHOT_VERSION = 1;

const U32_MAX = 0xffff_ffff;
/** version u8, capacity u32, ring u32, entry count u32. */
const PREFIX_SIZE = 1 + 4 + 4 + 4;
/** client u128, userId, epoch, watermark, latestCommitOp, latestCommitTimestamp (u64 each), reply count u32. */
const ENTRY_FIXED_SIZE = 16 + 5 * 8 + 4;
/** requestChecksum (16 bytes), reply length u32. */
const REPLY_FIXED_SIZE = CHECKSUM_SIZE + 4;
/** The trailing digest: the first 16 bytes of SHA-256 of everything before it. */
const DIGEST_SIZE = 16;

/**
 * Encodes a table as deterministic bytes (format version 1). All integers little-endian:
 *
 * ```text
 * u8    format version (1)
 * u32   capacity
 * u32   ring
 * u32   entry count n (≤ capacity)
 * n ×   entry, in eviction order (ascending latestCommitOp, then client id):
 *   u128  client (16 bytes, low 64 bits first, as on the wire)
 *   u64   userId
 *   u64   epoch
 *   u64   watermark
 *   u64   latestCommitOp
 *   u64   latestCommitTimestamp (ns)
 *   u32   reply count k (≤ ring, ≤ watermark, ≥ 1 when watermark > 0)
 *   k ×   cached reply, oldest first (request number = watermark − k + 1 + i, not stored):
 *     16 bytes  requestChecksum
 *     u32       reply length m
 *     m bytes   reply
 * 16 bytes  the first 16 bytes of SHA-256 of every byte above
 * ```
 *
 * Derivable fields (each reply's request number, `watermarkChecksum`) are not stored, so
 * a snapshot cannot hold two answers that disagree, and equal tables give equal bytes.
 * The digest makes garbling detectable: restore never accepts bytes this code did not write.
 */
export function encodeTableSnapshot(snapshot: TableSnapshot): Buffer {
  let size = PREFIX_SIZE + DIGEST_SIZE;
  for (const entry of snapshot.entries) {
    size += ENTRY_FIXED_SIZE;
    for (const cached of entry.replies) size += REPLY_FIXED_SIZE + cached.reply.length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  out.writeUInt8(TABLE_SNAPSHOT_VERSION, at);
  at += 1;
  out.writeUInt32LE(snapshot.capacity, at);
  at += 4;
  out.writeUInt32LE(snapshot.ring, at);
  at += 4;
  out.writeUInt32LE(snapshot.entries.length, at);
  at += 4;
  for (const entry of snapshot.entries) {
    writeClientId(out, at, entry.client);
    at += 16;
    writeU64(out, at, entry.userId);
    at += 8;
    writeU64(out, at, entry.epoch);
    at += 8;
    writeU64(out, at, entry.watermark);
    at += 8;
    writeU64(out, at, entry.latestCommitOp);
    at += 8;
    out.writeBigUInt64LE(entry.latestCommitTimestamp, at);
    at += 8;
    out.writeUInt32LE(entry.replies.length, at);
    at += 4;
    for (const cached of entry.replies) {
      if (cached.requestChecksum.length !== CHECKSUM_SIZE || cached.reply.length > U32_MAX) {
        throw new TableInvariantError(`client ${entry.client}: cached reply not encodable`);
      }
      cached.requestChecksum.copy(out, at);
      at += CHECKSUM_SIZE;
      out.writeUInt32LE(cached.reply.length, at);
      at += 4;
      cached.reply.copy(out, at);
      at += cached.reply.length;
    }
  }
  digest(out, at).copy(out, at);
  at += DIGEST_SIZE;
  if (at !== size) throw new TableInvariantError(`snapshot size ${at} !== computed ${size}`);
  return out;
}

/**
 * Decodes and validates a snapshot. Every failure is a {@link TableSnapshotInvalidError}.
 *
 * Checks the structure (version, lengths, digest, no trailing bytes) and the entry
 * invariants listed on {@link ClientEntry}, rejects duplicate client ids, and returns the
 * entries sorted by (latestCommitOp, client id) with non-decreasing timestamps in that
 * order, which is the order the table's expiry scan relies on. Cached replies are copied
 * out of `bytes` (see createCachedReply), so the caller may reuse it and the table does
 * not pin it.
 */
export function decodeTableSnapshot(bytes: Uint8Array): TableSnapshot {
  try {
    return decode(bytes);
  } catch (error) {
    if (error instanceof TableSnapshotInvalidError) throw error;
    // Bounds are checked before every read; this only turns an unforeseen failure
    // into the one error restore promises.
    throw new TableSnapshotInvalidError('client table snapshot could not be decoded', {
      cause: error,
    });
  }
}

function invalid(message: string): never {
  throw new TableSnapshotInvalidError(`invalid client table snapshot: ${message}`);
}

function digest(bytes: Uint8Array, end: number): Buffer {
  return createHash('sha256').update(bytes.subarray(0, end)).digest().subarray(0, DIGEST_SIZE);
}

/** Sequential reads that check bounds first, so a short input can never throw a RangeError. */
class SnapshotReader {
  private at = 0;

  constructor(
    private readonly view: Buffer,
    /** Reads stop here: the digest follows. */
    private readonly end: number,
  ) {}

  get offset(): number {
    return this.at;
  }

  get remaining(): number {
    return this.end - this.at;
  }

  private take(size: number, what: string): number {
    if (size > this.end - this.at) invalid(`truncated in ${what} at byte ${this.at}`);
    const at = this.at;
    this.at += size;
    return at;
  }

  u8(what: string): number {
    return this.view.readUInt8(this.take(1, what));
  }

  u32(what: string): number {
    return this.view.readUInt32LE(this.take(4, what));
  }

  /** A u64 the table can hold exactly (≤ 2^53 − 1). */
  u64(what: string): number {
    const value = readU64(this.view, this.take(8, what));
    if (!Number.isSafeInteger(value)) invalid(`${what} ${value} exceeds 2^53 - 1`);
    return value;
  }

  bigU64(what: string): bigint {
    return this.view.readBigUInt64LE(this.take(8, what));
  }

  clientId(what: string): ClientId {
    return readClientId(this.view, this.take(16, what));
  }

  /** A view of the next `size` bytes (callers copy what they keep). */
  bytes(size: number, what: string): Buffer {
    const at = this.take(size, what);
    return this.view.subarray(at, at + size);
  }
}

function decode(bytes: Uint8Array): TableSnapshot {
  if (!(bytes instanceof Uint8Array)) invalid('not a byte array');
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < PREFIX_SIZE + DIGEST_SIZE) invalid(`${view.length} bytes is too short`);
  const version = view.readUInt8(0);
  if (version !== TABLE_SNAPSHOT_VERSION) invalid(`unknown format version ${version}`);
  const end = view.length - DIGEST_SIZE;
  if (!digest(view, end).equals(view.subarray(end))) invalid('digest mismatch');

  const reader = new SnapshotReader(view, end);
  reader.u8('version');
  const capacity = reader.u32('capacity');
  const ring = reader.u32('ring');
  const count = reader.u32('entry count');
  if (capacity < 1) invalid('capacity 0');
  if (ring < 1) invalid('ring 0');
  if (count > capacity) invalid(`${count} entries exceed capacity ${capacity}`);
  // Every entry takes at least ENTRY_FIXED_SIZE bytes: reject an absurd count up front.
  if (count * ENTRY_FIXED_SIZE > reader.remaining) invalid(`truncated: ${count} entries`);

  const entries: ClientEntry[] = [];
  for (let index = 0; index < count; index++) entries.push(decodeEntry(reader, ring));
  if (reader.remaining !== 0) invalid(`${reader.remaining} trailing bytes after the entries`);

  // Duplicates are looked for across all entries: sorted by op, two entries of one
  // client need not be neighbours.
  const clients = new Set<ClientId>();
  for (const entry of entries) {
    if (clients.has(entry.client)) invalid(`duplicate client ${entry.client}`);
    clients.add(entry.client);
  }
  entries.sort(compareEvictionOrder);
  for (let index = 1; index < entries.length; index++) {
    const previous = entries[index - 1];
    const entry = entries[index];
    if (previous.latestCommitTimestamp > entry.latestCommitTimestamp) {
      invalid(`client ${entry.client}: timestamps decrease in op order`);
    }
  }
  return { capacity, ring, entries };
}

function decodeEntry(reader: SnapshotReader, ring: number): ClientEntry {
  const client = reader.clientId('client');
  const userId = reader.u64('userId');
  const epoch = reader.u64('epoch');
  const watermark = reader.u64('watermark');
  const latestCommitOp = reader.u64('latestCommitOp');
  const latestCommitTimestamp = reader.bigU64('latestCommitTimestamp');
  const replyCount = reader.u32('reply count');
  const problem = entryNumbersProblem(epoch, latestCommitOp, watermark, replyCount, ring);
  if (problem !== undefined) invalid(`client ${client}: ${problem}`);
  if (replyCount * REPLY_FIXED_SIZE > reader.remaining) invalid(`client ${client}: truncated`);

  let replies: readonly CachedReply[] = NO_REPLIES;
  if (replyCount > 0) {
    const ringReplies: CachedReply[] = [];
    const first = watermark - replyCount + 1;
    for (let index = 0; index < replyCount; index++) {
      const requestChecksum = reader.bytes(CHECKSUM_SIZE, 'requestChecksum');
      const length = reader.u32('reply length');
      const reply = reader.bytes(length, 'reply');
      ringReplies.push(createCachedReply(first + index, requestChecksum, reply));
    }
    replies = Object.freeze(ringReplies);
  }
  const watermarkChecksum =
    replies.length === 0 ? ZERO_CHECKSUM : replies[replies.length - 1].requestChecksum;
  return createClientEntry({
    client,
    userId,
    epoch,
    watermark,
    watermarkChecksum,
    latestCommitOp,
    latestCommitTimestamp,
    replies,
  });
}
