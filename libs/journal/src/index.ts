/**
 * The public API of `@once/journal`: the data directory's format version,
 * the kinds of journal entry (as `once journal` and the journal feed name
 * them), and the errors (each with its stable `code`) a node stops or
 * refuses to open its data directory with. The journal port and its LevelDB
 * store are for the sibling packages: `@once/journal/internal`.
 *
 * @packageDocumentation
 * @public
 */
export { EntryKind } from './journal-entry';
export { FORMAT_VERSION } from './node-meta';
export { DataDirectoryIncompleteError } from './data-directory-incomplete.error';
export { DataDirectoryInUseError } from './data-directory-in-use.error';
export { DataDirectoryUnreadableError } from './data-directory-unreadable.error';
export { InvalidEntryError } from './invalid-entry.error';
export { JournalBusyError } from './journal-busy.error';
export { JournalCompactedError } from './journal-compacted.error';
export { JournalClosedError } from './journal-closed.error';
export { JournalCorruptionError } from './journal-corruption.error';
export { JournalFailedError } from './journal-failed.error';
export { NodeMetaCorruptionError } from './node-meta-corruption.error';
export { NodeSecretMismatchError } from './node-secret-mismatch.error';
export { UnsupportedFormatError } from './unsupported-format.error';
export { FormatUpgradeNeededError } from './format-upgrade-needed.error';
