/**
 * `@once/engine/internal`: the implementor's API of the engine, for the
 * sibling packages (`@once/framework`, `@once/gateway`, `@once/cluster`,
 * `@once/cli`, `@once/metrics`): the applier, the live engine, the node, the
 * replay saga, the reply frames, the settings record, the code manifest.
 * Not covered by semver: it changes with the packages of the same version,
 * which are always installed together. The module author's names here
 * (`CommandError`, `ApplyContext`, `KeyedState`, ...) are published by
 * `@once/framework`; a team imports them from there.
 *
 * @packageDocumentation
 * @internal
 */
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
export { CommandRegistry } from './command-registry';
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
  evictionAtApply,
  ownedByOtherUserReply,
  refusalAtApply,
  registerReply,
  replicatedReply,
  requestGapMessage,
} from './reply-frames';
export { type PingClusterView, SINGLE_NODE_PING } from './ping-cluster-view';
export { SINGLE_NODE_ROLE, type WriteRole } from './write-role';
export { type EngineLogger, SILENT_LOGGER, describeError } from './engine-logger';
export {
  type EngineSettings,
  GENESIS_SETTINGS,
  sameSettings,
  validateSettings,
} from './engine-settings';
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
  type StateDeclaration,
  type StatePicture,
  StateRegistry,
  type StateRegistryOptions,
} from './state-registry';
export {
  type CodeManifest,
  type CodeSupport,
  decodeManifest,
  encodeManifest,
  manifestOf,
  sameManifest,
  unsupportedBy,
} from './code-manifest';
export {
  type BootSettlementOptions,
  type UpgradeFinalization,
  settleManifest,
} from './boot-settlement';
export { type ReplyDigest, decodeReplyChecks } from './reply-checks';
export {
  KeyedMap,
  KeyedSet,
  KeyedState,
  KeyedStore,
  type KeyedStateMarker,
  DEFAULT_KEYED_CACHE_ENTRIES,
  isKeyedState,
} from './keyed';
export {
  type HttpApplied,
  type HttpRequestDraft,
  type HttpResponseRecord,
  type HttpSubmitOptions,
  type HttpSubmitResult,
} from './http/http-request';
export {
  HTTP_FINGERPRINT_BYTES,
  type HttpRequestBody,
  decodeHttpRequestBody,
  encodeHttpRequestBody,
  httpRequestEntryDraft,
  scopedKeyOf,
} from './http/http-request-body';
export {
  type HttpKeyRecord,
  HttpKeyTable,
  HttpKeyTableInvariantError,
  responseOf,
} from './http/http-key-table';
export { IDEMPOTENCY_KEY_REUSED, httpErrorBody } from './http/http-response';
