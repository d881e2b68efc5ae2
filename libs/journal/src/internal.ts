/**
 * `@once/journal/internal`: the implementor's API of the journal, for the
 * sibling packages (`@once/engine`, `@once/cluster`, `@once/cli`, ...): the
 * journal port, its LevelDB store, the entry codec, the keyed records, the
 * data directory's layout. Not covered by semver: it changes with the
 * packages of the same version, which are always installed together.
 *
 * @packageDocumentation
 * @internal
 */
export { isEntryKind, type EntryDraft, type JournalEntry } from './journal-entry';
export { ENTRY_HEADER_BYTES, EntryOffset, decodeEntry, encodeEntry } from './entry-codec';
export { assertValidDraft } from './entry-validator';
export { type StampedEntry, nextTimestamp, stampEntry } from './stamped-entry';
export { type EnqueueOptions, type Journal, type SaveSnapshotOptions } from './journal-port';
export { type BatchWrittenListener, JournalStore, type JournalStoreOptions } from './journal-store';
export { type SnapshotRecord } from './snapshot-codec';
export { type NodeMeta } from './node-meta';
export { SUBLEVEL_NAMES } from './leveldb-layout';
export { NODE_SECRET_BYTES } from './node-secret';
export { wallClockNs } from './wall-clock';
export { type CompactionResult } from './journal-retention';
export {
  KEYED_HEAD_KEY,
  KEYED_SNAPSHOT_COPY_KEY,
  type KeyedCheckpoint,
  type KeyedHead,
  type KeyedRecordReader,
} from './keyed-records';
