import { EntryOffset, encodeValidatedEntry } from './entry-codec';
import { InvalidEntryError } from './invalid-entry.error';
import { type EntryDraft, type JournalEntry } from './journal-entry';

const REQUEST_CHECKSUM_END = EntryOffset.requestChecksum + 16;
const U64_LIMIT = 1n << 64n;

/** An entry as a journal assigned it, with the bytes it is stored as. */
export interface StampedEntry {
  readonly entry: JournalEntry;
  readonly encoded: Buffer;
}

/**
 * The timestamp a journal gives its next entry: the clock's reading, never
 * below the previous entry's, so journal time never goes backwards.
 */
export function nextTimestamp(now: bigint, lastTimestamp: bigint): bigint {
  return now > lastTimestamp ? now : lastTimestamp;
}

/**
 * Encodes `draft` (which passed `assertValidDraft`) at `op`/`timestamp`: the
 * one way every journal implementation turns a draft into an entry, so
 * LevelDB and a replicated journal store the same bytes. The entry's
 * checksum and body are views of the encoding: it is exactly what was
 * written, whatever the caller later does with its own buffers. Throws
 * InvalidEntryError for a timestamp beyond u64 (a broken clock).
 */
export function stampEntry(draft: EntryDraft, op: number, timestamp: bigint): StampedEntry {
  if (timestamp >= U64_LIMIT) {
    throw new InvalidEntryError('timestamp', `is beyond u64 (the clock reads ${timestamp})`);
  }
  const encoded = encodeValidatedEntry(draft, op, timestamp);
  // Same property order as decodeEntry's result: one object shape for V8.
  const entry: JournalEntry = {
    kind: draft.kind,
    client: draft.client,
    session: draft.session,
    request: draft.request,
    userId: draft.userId,
    requestChecksum: encoded.subarray(EntryOffset.requestChecksum, REQUEST_CHECKSUM_END),
    body: encoded.subarray(EntryOffset.body),
    op,
    timestamp,
  };
  return { entry, encoded };
}
