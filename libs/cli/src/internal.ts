/**
 * `@once/cli/internal`: what the CLI reads of a stopped data directory or a
 * running node, for the reference app's operations endpoints and the tests:
 * replay and verification, corrupt-tail repair, entry and session views,
 * redaction, the app module loader, the node ping. Not covered by semver:
 * it changes with the packages of the same version, which are always
 * installed together.
 *
 * @packageDocumentation
 * @internal
 */
export { Output } from './output';
export {
  type LoadedAppModule,
  type NestHost,
  OWN_HOST,
  REFERENCE_APP_MODULE,
  appModulePath,
  loadAppModule,
} from './app-module';
export {
  type ReplayOptions,
  type ReplayedDataDir,
  replayDataDir,
  verificationPassed,
  verificationText,
} from './replayed-data-dir';
export {
  type CorruptTailReport,
  corruptTailExitCode,
  corruptTailText,
  findCorruptOp,
  truncateCorruptTail,
} from './corrupt-tail';
export { type BodyDisclosure, type EntryView, WITHHELD, entryLine, entryView } from './entry-view';
export {
  type ReplyView,
  type RequestAnswer,
  type SessionView,
  replyView,
  requestAnswer,
  sessionView,
} from './session-view';
export {
  BODY_DEPTH_MAX,
  REDACTED,
  TOO_DEEP,
  boundedCopy,
  isCredentialKey,
  redactCredentials,
} from './redact';
export { operationsTokenOf } from './operations-token';
export { type NodeAddressOptions, type PingAnswer, ping } from './ping';
export { inUseError, openStoppedJournal, withStoppedJournal } from './stopped-data-dir';
