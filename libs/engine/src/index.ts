/**
 * The public API of `@once/engine`: the log events a node writes and the
 * errors (each with its stable `code`) a team meets when a node stops or
 * refuses to boot. A module author's names (`CommandError`, `ApplyContext`,
 * `KeyedState`, ...) are defined here but published by `@once/framework`,
 * their one import path. What the sibling packages need besides is in
 * `@once/engine/internal`, which a team never imports.
 *
 * @packageDocumentation
 * @public
 */
export { LogEvent, type LogEventFields } from './log-event';
export { ApplyOrderError } from './apply-order.error';
export { EngineUnavailableError } from './engine-unavailable.error';
export { InvalidSettingsError } from './engine-settings';
export { SnapshotInvalidError } from './engine-snapshot-codec';
export {
  DuplicateStateError,
  InvalidStateVersionError,
  RetiredStateProvidedError,
  SnapshotTooNewError,
  StateMismatchError,
} from './state-registry';
export { DuplicatePatternError, RetiredPatternHandledError } from './command-registry';
export { ManifestInvalidError } from './code-manifest';
export { CodeChangeError } from './code-change.error';
export { CommandNotProvidedError } from './command-not-provided.error';
export { ModuleVersionUnsupportedError } from './module-version-unsupported.error';
export { NondeterministicApplyError, type ReplyDifference } from './nondeterministic-apply.error';
export { SnapshotsUnusableError } from './snapshots-unusable.error';
export { StateNotProvidedError } from './state-not-provided.error';
export { ReplyCheckInvalidError } from './reply-checks';
export { KeyedStateBehindError } from './keyed';
