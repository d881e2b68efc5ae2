/**
 * A reader of LevelDB's write-ahead log (`NNNNNN.log`), format of LevelDB
 * 1.20 as bundled by classic-level (db/log_format.h, db/write_batch.cc).
 *
 * The file is a sequence of 32 KiB blocks of physical records: checksum (4),
 * length (u16 LE), type (1: full, 2: first, 3: middle, 4: last), data. A block
 * tail shorter than a record header is zero padding. Each logical record is
 * one WriteBatch exactly as one `db.batch()` wrote it: sequence (u64 LE),
 * count (u32 LE), then per operation a tag (1: put, 0: delete), the key and
 * (puts) the value, each length-prefixed with a varint32.
 */

const BLOCK_BYTES = 32 * 1024;
const RECORD_HEADER_BYTES = 7;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;
const BATCH_HEADER_BYTES = 12;
const TAG_PUT = 1;
const TAG_DELETE = 0;

/** The journal sublevel's key prefix (abstract-level sublevels: `!name!`). */
const JOURNAL_PREFIX = Buffer.from('!journal!');
/** Journal keys are the prefix and the op as 8 bytes big-endian. */
const JOURNAL_KEY_BYTES = JOURNAL_PREFIX.length + 8;
/** Byte offset of the u64 ns timestamp in an encoded journal entry (entry-codec.ts). */
const ENTRY_TIMESTAMP_OFFSET = 24;

/** One WriteBatch of the log: one synced `db.batch()` of the store. */
export interface WalBatch {
  /** LevelDB sequence number of its first operation. */
  readonly sequence: number;
  /** Operations in the batch. */
  readonly count: number;
  /** How many of them put a journal entry. */
  readonly journalEntries: number;
  /** Bytes of the journal entries' keys and values, summed. */
  readonly journalKeyBytes: number;
  readonly journalValueBytes: number;
  /** Journal timestamp of its first journal entry (ns since the Unix epoch), if any. */
  readonly firstTimestampNs: bigint | undefined;
}

/**
 * Every complete WriteBatch in `bytes` (a whole log file), in file order.
 * Parsing stops at the first torn or unreadable record: that is where the
 * writer was killed.
 */
export function parseLogFile(bytes: Buffer): WalBatch[] {
  const batches: WalBatch[] = [];
  let fragments: Buffer[] | undefined;
  for (let blockStart = 0; blockStart < bytes.length; blockStart += BLOCK_BYTES) {
    const blockEnd = Math.min(blockStart + BLOCK_BYTES, bytes.length);
    let offset = blockStart;
    while (blockEnd - offset >= RECORD_HEADER_BYTES) {
      const length = bytes.readUInt16LE(offset + 4);
      const type = bytes[offset + 6];
      const dataStart = offset + RECORD_HEADER_BYTES;
      const dataEnd = dataStart + length;
      if (type === 0 && length === 0) break; // zero padding / preallocated space
      if (dataEnd > blockEnd) return batches; // torn write
      const data = bytes.subarray(dataStart, dataEnd);
      offset = dataEnd;
      if (type === FULL) {
        batches.push(parseWriteBatch(data));
      } else if (type === FIRST) {
        fragments = [data];
      } else if (type === MIDDLE && fragments) {
        fragments.push(data);
      } else if (type === LAST && fragments) {
        fragments.push(data);
        batches.push(parseWriteBatch(Buffer.concat(fragments)));
        fragments = undefined;
      } else {
        return batches;
      }
    }
  }
  return batches;
}

function parseWriteBatch(rep: Buffer): WalBatch {
  if (rep.length < BATCH_HEADER_BYTES) throw new Error('a WriteBatch shorter than its header');
  const sequence = Number(rep.readBigUInt64LE(0));
  const count = rep.readUInt32LE(8);
  let offset = BATCH_HEADER_BYTES;
  let journalEntries = 0;
  let journalKeyBytes = 0;
  let journalValueBytes = 0;
  let firstTimestampNs: bigint | undefined;
  for (let i = 0; i < count; i++) {
    const tag = rep[offset++];
    const key = readSlice(rep, offset);
    offset = key.end;
    if (tag === TAG_DELETE) continue;
    if (tag !== TAG_PUT) throw new Error(`unknown WriteBatch tag ${tag}`);
    const value = readSlice(rep, offset);
    offset = value.end;
    if (!isJournalKey(rep, key.start, key.end)) continue;
    journalEntries++;
    journalKeyBytes += key.end - key.start;
    journalValueBytes += value.end - value.start;
    if (firstTimestampNs === undefined && value.end - value.start >= ENTRY_TIMESTAMP_OFFSET + 8) {
      firstTimestampNs = rep.readBigUInt64LE(value.start + ENTRY_TIMESTAMP_OFFSET);
    }
  }
  return { sequence, count, journalEntries, journalKeyBytes, journalValueBytes, firstTimestampNs };
}

/** A varint32-length-prefixed slice at `offset`: where its bytes start and end. */
function readSlice(rep: Buffer, offset: number): { start: number; end: number } {
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = rep[offset++];
    length |= (byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  return { start: offset, end: offset + length };
}

function isJournalKey(rep: Buffer, start: number, end: number): boolean {
  return (
    end - start === JOURNAL_KEY_BYTES &&
    JOURNAL_PREFIX.compare(rep, start, start + JOURNAL_PREFIX.length) === 0
  );
}
