/**
 * `@once/framework/internal`: what the sibling packages (`@once/gateway`,
 * `@once/metrics`, `@once/cli`, `@once/testing`) need of the framework and a
 * team does not: the admission ticket a transport hands a handler, handler
 * discovery, the reply shapes, the session verdicts, the metadata keys. Not
 * covered by semver: it changes with the packages of the same version,
 * which are always installed together. A team imports `@once/framework`.
 *
 * @packageDocumentation
 * @internal
 */
export {
  ADMISSION_SINK,
  type AdmissionSink,
  AdmissionTicket,
  RAW_PAYLOAD,
  isAdmissionSink,
} from './admission-ticket';
export { BareAdmission, type CommandSite, type PipelineScope } from './bare-admission';
export { commandDisclosureOf } from './command-disclosure';
export { CommandErrorFilter } from './command-error.filter';
export { type FailureReporters, type ScannedHandlers, scanHandlers } from './handler-scan';
export { type ForeignHandler, foreignHandlerError } from './foreign-handlers';
export { NO_MESSAGE_HANDLER, executionContextOf, rpcTargetsOf } from './nest/nest-internals';
export { JOURNAL_HOOKS, type OnceModuleHookedOptions, journalHooksOf } from './journal-hooks';
export { patternLabel, routeOf } from './once-pattern';
export { REPLY_NOT_SINGLE, commandReplyOf, queryStreamMessage } from './reply-shape';
export { type RefusalFields, RpcExceptionRefusal, refusalFieldsOf, rpcErrorOf } from './rpc-error';
export { type OnceRuntimeConsumer, isOnceRuntimeConsumer } from './once-runtime-consumer.interface';
export {
  ONCE_COMMAND_METADATA,
  ONCE_PATTERN_KIND,
  ONCE_PATTERN_ROUTE,
  ONCE_QUERY_METADATA,
  ONCE_TRANSPORT,
} from './once.constants';
export { fenceRefusal } from './session/guards/epoch-fence.guard';
export {
  type FenceVerdict,
  type ResumeVerdict,
  fenceVerdict,
  resumeVerdict,
} from './session/session-verdict';
