import * as protocol from '@once/protocol/internal';
import { bufferView } from './buffer-view';
import { assertValidDraft } from './entry-validator';
import { InvalidEntryError } from './invalid-entry.error';
import { JournalCorruptionError } from './journal-corruption.error';
import { type EntryDraft, type JournalEntry, isEntryKind } from './journal-entry';

/**
 * The protocol helpers the codec calls, read from the package once. In the
 * built CommonJS every named import from another package is read, at each
 * call, through a getter of the package's index (its re-exports), and an
 * entry is encoded per request: six such reads per entry showed in profiles.
 */
const {
  checksumInto,
  checksumMatches,
  readClientId,
  readU64,
  writeBigU64,
  writeClientId,
  writeU64,
} = protocol;

/**
 * Byte offsets of an encoded journal entry (all integers little-endian, like
 * the wire). The layout is the on-disk format version 1: changing it is a
 * format version change, never a refactor.
 */
export const EntryOffset = {
  /** XXH3-128 of bytes 16..end. */
  checksum: 0,
  op: 16,
  /** u64 ns since the Unix epoch. */
  timestamp: 24,
  /** u128, written like the wire's `client`. */
  client: 32,
  session: 48,
  request: 56,
  requestChecksum: 64,
  /** u32. */
  userId: 80,
  /** u8 {@link EntryKind}. */
  kind: 84,
  /** 3 bytes, always 0. */
  reserved: 85,
  /** u32 byte length of the body. */
  bodyLength: 88,
  body: 92,
} as const;

/** Bytes before the body: the smallest valid entry. */
export const ENTRY_HEADER_BYTES = EntryOffset.body;

/** The checksum covers everything after itself. */
const CHECKSUMMED_FROM = EntryOffset.op;
const CHECKSUM_BYTES = 16;
const U64_LIMIT = 1n << 64n;
/** High 32 bits of 2^53: a stored u64 at or above it is not an exact number. */
const MAX_SAFE_HIGH_WORD = 0x20_0000;

/**
 * Encodes a complete entry, validating every field first (an invalid one throws
 * {@link InvalidEntryError}). One Buffer allocation.
 */
export function encodeEntry(entry: JournalEntry): Buffer {
  assertValidDraft(entry);
  if (!Number.isSafeInteger(entry.op) || entry.op < 1) {
    throw new InvalidEntryError('op', `is not a safe integer >= 1: ${String(entry.op)}`);
  }
  if (typeof entry.timestamp !== 'bigint' || entry.timestamp < 0n || entry.timestamp >= U64_LIMIT) {
    throw new InvalidEntryError('timestamp', `is not a u64 bigint: ${String(entry.timestamp)}`);
  }
  return encodeValidatedEntry(entry, entry.op, entry.timestamp);
}

/**
 * Encodes a draft that already passed `assertValidDraft` at `op`/`timestamp`,
 * in exactly one Buffer allocation: the journal's append path, where the
 * draft was validated before its op was assigned.
 */
export function encodeValidatedEntry(draft: EntryDraft, op: number, timestamp: bigint): Buffer {
  const body = draft.body;
  const bytes = Buffer.allocUnsafe(ENTRY_HEADER_BYTES + body.byteLength);
  writeU64(bytes, EntryOffset.op, op);
  writeBigU64(bytes, EntryOffset.timestamp, timestamp);
  writeClientId(bytes, EntryOffset.client, draft.client);
  writeU64(bytes, EntryOffset.session, draft.session);
  writeU64(bytes, EntryOffset.request, draft.request);
  const requestChecksum = draft.requestChecksum;
  for (let i = 0; i < CHECKSUM_BYTES; i++) {
    bytes[EntryOffset.requestChecksum + i] = requestChecksum[i];
  }
  bytes.writeUInt32LE(draft.userId, EntryOffset.userId);
  bytes[EntryOffset.kind] = draft.kind;
  bytes[EntryOffset.reserved] = 0;
  bytes[EntryOffset.reserved + 1] = 0;
  bytes[EntryOffset.reserved + 2] = 0;
  bytes.writeUInt32LE(body.byteLength, EntryOffset.bodyLength);
  bytes.set(body, EntryOffset.body);
  // Last: the checksum covers every byte written above.
  checksumInto(bytes.subarray(CHECKSUMMED_FROM), bytes, EntryOffset.checksum);
  return bytes;
}

/**
 * Decodes and verifies one stored entry: length, checksum, body length, kind,
 * reserved bytes and, when `expectedOp` is given, that the entry is the one its
 * key promises. Any failure throws {@link JournalCorruptionError} naming the op
 * (`expectedOp` when given, else the op the bytes claim).
 *
 * No copy: `body` and `requestChecksum` are subarrays of `bytes`, so the caller
 * must not reuse `bytes` while it holds the entry.
 */
export function decodeEntry(bytes: Uint8Array, expectedOp?: number): JournalEntry {
  const view = bufferView(bytes);
  const length = view.byteLength;
  if (length < ENTRY_HEADER_BYTES) {
    const claimedOp = length >= EntryOffset.op + 8 ? readU64(view, EntryOffset.op) : 0;
    throw new JournalCorruptionError(
      expectedOp ?? claimedOp,
      `${length} bytes, shorter than the ${ENTRY_HEADER_BYTES}-byte header`,
    );
  }
  if (!checksumMatches(view.subarray(CHECKSUMMED_FROM), view, EntryOffset.checksum)) {
    throw new JournalCorruptionError(
      expectedOp ?? readU64(view, EntryOffset.op),
      'checksum mismatch',
    );
  }
  // The checksum matched: from here on a failure means the bytes were written
  // wrong (or by another format), not damaged after the fact.
  const op = readSafeU64(view, EntryOffset.op);
  const reportedOp = expectedOp ?? op ?? readU64(view, EntryOffset.op);
  if (op === undefined || op < 1) {
    throw new JournalCorruptionError(reportedOp, 'stored op is not a safe integer >= 1');
  }
  if (expectedOp !== undefined && op !== expectedOp) {
    throw new JournalCorruptionError(expectedOp, `stored op is ${op}`);
  }
  const bodyLength = view.readUInt32LE(EntryOffset.bodyLength);
  if (bodyLength !== length - ENTRY_HEADER_BYTES) {
    throw new JournalCorruptionError(
      op,
      `body length field says ${bodyLength} bytes, ${length - ENTRY_HEADER_BYTES} are stored`,
    );
  }
  const kind = view[EntryOffset.kind];
  if (!isEntryKind(kind)) {
    throw new JournalCorruptionError(op, `unknown entry kind ${kind}`);
  }
  if (
    view[EntryOffset.reserved] !== 0 ||
    view[EntryOffset.reserved + 1] !== 0 ||
    view[EntryOffset.reserved + 2] !== 0
  ) {
    throw new JournalCorruptionError(op, 'reserved bytes are not zero');
  }
  const session = readSafeU64(view, EntryOffset.session);
  const request = readSafeU64(view, EntryOffset.request);
  if (session === undefined || request === undefined) {
    throw new JournalCorruptionError(op, 'session or request is not a safe integer');
  }
  return {
    kind,
    client: readClientId(view, EntryOffset.client),
    session,
    request,
    userId: view.readUInt32LE(EntryOffset.userId),
    requestChecksum: view.subarray(
      EntryOffset.requestChecksum,
      EntryOffset.requestChecksum + CHECKSUM_BYTES,
    ),
    body: view.subarray(EntryOffset.body),
    op,
    timestamp: view.readBigUInt64LE(EntryOffset.timestamp),
  };
}

/** The u64 at `offset`, or `undefined` when it is 2^53 or more (not exact as a number). */
function readSafeU64(view: Buffer, offset: number): number | undefined {
  return view.readUInt32LE(offset + 4) >= MAX_SAFE_HIGH_WORD ? undefined : readU64(view, offset);
}
