export { runCli } from './program';
export { type CliIo, type GlobalOptions, Output } from './output';
export { CliError } from './cli-error';
export {
  type LoadedAppModule,
  type NestHost,
  type OnceAppModule,
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
