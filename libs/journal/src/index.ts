export { EntryKind, isEntryKind, type EntryDraft, type JournalEntry } from './journal-entry';
export { ENTRY_HEADER_BYTES, EntryOffset, decodeEntry, encodeEntry } from './entry-codec';
export { assertValidDraft } from './entry-validator';
export { type StampedEntry, nextTimestamp, stampEntry } from './stamped-entry';
export { type EnqueueOptions, type Journal } from './journal-port';
export { type BatchWrittenListener, JournalStore, type JournalStoreOptions } from './journal-store';
export { type SnapshotRecord } from './snapshot-codec';
export { FORMAT_VERSION, type NodeMeta } from './node-meta';
export { SUBLEVEL_NAMES } from './leveldb-layout';
export { NODE_SECRET_BYTES } from './node-secret';
export { wallClockNs } from './wall-clock';
export { DataDirectoryIncompleteError } from './data-directory-incomplete.error';
export { DataDirectoryInUseError } from './data-directory-in-use.error';
export { DataDirectoryUnreadableError } from './data-directory-unreadable.error';
export { InvalidEntryError } from './invalid-entry.error';
export { JournalBusyError } from './journal-busy.error';
export { JournalCompactedError } from './journal-compacted.error';
export { type CompactionResult } from './journal-retention';
export { JournalClosedError } from './journal-closed.error';
export { JournalCorruptionError } from './journal-corruption.error';
export { JournalFailedError } from './journal-failed.error';
export { NodeMetaCorruptionError } from './node-meta-corruption.error';
export { NodeSecretMismatchError } from './node-secret-mismatch.error';
export { UnsupportedFormatError } from './unsupported-format.error';
export { FormatUpgradeNeededError } from './format-upgrade-needed.error';
export {
  KEYED_HEAD_KEY,
  KEYED_SNAPSHOT_COPY_KEY,
  type KeyedCheckpoint,
  type KeyedHead,
  type KeyedRecordReader,
} from './keyed-records';
