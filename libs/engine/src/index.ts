export { type AdmissionContext } from './admission-context';
export { type ApplyContext, NO_VERSIONS, SYSTEM_USER_ID, applyContextOf } from './apply-context';
export { Applier, type ApplierOptions } from './applier';
export { type ApplyOutcome, type EndedSession, type RegisteredSession } from './apply-outcome';
export {
  CommandError,
  type CommandErrorOptions,
  EngineRefusal,
  handlerFailedMessage,
} from './command.error';
export { newErrorId } from './command-admission';
export {
  type CommandBody,
  type CommandRefusal,
  decodeCommandBody,
  encodeCommandBody,
} from './command-body';
export { type CommandHandler } from './command-handler';
export {
  CommandRegistry,
  DuplicatePatternError,
  RetiredPatternHandledError,
} from './command-registry';
export {
  Engine,
  type EngineOptions,
  type EnginePhase,
  type FailureCallback,
  type OutcomeCallback,
} from './engine';
export {
  type ApplyRefusal,
  CLIENT_OWNED_BY_OTHER_USER_MESSAGE,
  EPOCH_AHEAD_MESSAGE,
  type RegisteredEpoch,
  answerFrame,
  badFrameReply,
  evictionAnswer,
  evictionAtApply,
  inFlightNotReady,
  notLeaderAnswer,
  ownedByOtherUserReply,
  refusalAtApply,
  registerReply,
  replicatedReply,
  pingReply,
  type PingClusterView,
  SINGLE_NODE_PING,
  requestGapMessage,
  unaskedEviction,
} from './reply-frames';
export { SINGLE_NODE_ROLE, type WriteRole } from './write-role';
export { ApplyOrderError } from './apply-order.error';
export { EngineUnavailableError } from './engine-unavailable.error';
export { type EngineLogger, SILENT_LOGGER, describeError } from './engine-logger';
export { LogEvent, type LogEventFields } from './log-event';
export {
  type EngineSettings,
  GENESIS_SETTINGS,
  InvalidSettingsError,
  sameSettings,
  validateSettings,
} from './engine-settings';
export { SnapshotInvalidError } from './engine-snapshot-codec';
export { type ConnectionScopedState, type ModuleState, isConnectionScoped } from './module-state';
export {
  type GenesisCommand,
  OnceNode,
  type OnceNodeOptions,
  journalGenesis,
  journalStoreOptions,
  nodeEngine,
  replayPhase,
  singleNode,
} from './once-node';
export { type NodeMembership, type OnceNodeFactory, type OnceNodePort } from './node-port';
export {
  type ReplayProgress,
  type ReplaySagaOptions,
  type ReplayTarget,
  firstOpOf,
  replaySaga,
} from './replay-saga';
export { type ReplayVerification, verifyReplay } from './replay-verification';
export {
  DuplicateStateError,
  InvalidStateVersionError,
  RetiredStateProvidedError,
  SnapshotTooNewError,
  StateMismatchError,
  type StateDeclaration,
  type StatePicture,
  StateRegistry,
  type StateRegistryOptions,
} from './state-registry';
export {
  type CodeManifest,
  type CodeSupport,
  ManifestInvalidError,
  decodeManifest,
  encodeManifest,
  manifestOf,
  sameManifest,
  unsupportedBy,
} from './code-manifest';
export { CodeChangeError } from './code-change.error';
export {
  type BootSettlementOptions,
  type UpgradeFinalization,
  settleManifest,
} from './boot-settlement';
export { CommandNotProvidedError } from './command-not-provided.error';
export { ModuleVersionUnsupportedError } from './module-version-unsupported.error';
export { NondeterministicApplyError, type ReplyDifference } from './nondeterministic-apply.error';
export { SnapshotsUnusableError } from './snapshots-unusable.error';
export { StateNotProvidedError } from './state-not-provided.error';
export { ReplyCheckInvalidError, type ReplyDigest, decodeReplyChecks } from './reply-checks';
export {
  KeyedMap,
  KeyedSet,
  KeyedState,
  KeyedStateBehindError,
  KeyedStore,
  type KeyedStateMarker,
  DEFAULT_KEYED_CACHE_ENTRIES,
  isKeyedState,
} from './keyed';
