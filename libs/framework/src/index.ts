export {
  ADMISSION_SINK,
  type AdmissionSink,
  AdmissionTicket,
  RAW_PAYLOAD,
  isAdmissionSink,
} from './admission-ticket';
export { BareAdmission, type CommandSite, type PipelineScope } from './bare-admission';
export { Admit, type AdmitOptions } from './decorators/admit.decorator';
export { Command, type CommandOptions } from './decorators/command.decorator';
export { type CommandDisclosure, commandDisclosureOf } from './command-disclosure';
export { Query } from './decorators/query.decorator';
export {
  ReplicatedState,
  type ReplicatedStateOptions,
} from './decorators/replicated-state.decorator';
export { CommandErrorFilter } from './command-error.filter';
export {
  type FailureReporters,
  HandlerDiscoveryError,
  type ScannedHandlers,
  scanHandlers,
} from './handler-scan';
export { type ForeignHandler, ForeignHandlerError, foreignHandlerError } from './foreign-handlers';
export { type OncePattern, patternLabel, routeOf } from './once-pattern';
export {
  REPLY_NOT_SINGLE,
  ReplyNotSingleError,
  commandReplyOf,
  queryStreamMessage,
} from './reply-shape';
export { type RefusalFields, RpcExceptionRefusal, refusalFieldsOf, rpcErrorOf } from './rpc-error';
export { type OnceAuthenticator } from './once-authenticator.interface';
export {
  type OnceModuleAsyncOptions,
  type OnceModuleOptions,
} from './once-module-options.interface';
export { ClusterOptionMovedError } from './cluster-option-moved.error';
export { OnceModule } from './once.module';
export { OnceRuntime } from './once-runtime';
export { type OnceRuntimeConsumer, isOnceRuntimeConsumer } from './once-runtime-consumer.interface';
export {
  ONCE_AUTHENTICATOR,
  ONCE_COMMAND_METADATA,
  ONCE_PATTERN_KIND,
  ONCE_PATTERN_ROUTE,
  ONCE_QUERY_METADATA,
  ONCE_TRANSPORT,
} from './once.constants';
// The engine types a module author needs, so one import serves.
export {
  type AdmissionContext,
  type ApplyContext,
  CommandError,
  type ConnectionScopedState,
  KeyedMap,
  KeyedSet,
  KeyedState,
  type ModuleState,
  SYSTEM_USER_ID,
} from '@once/engine';
export { EpochAheadException } from './session/exceptions/epoch-ahead.exception';
export { GatewayException } from './session/exceptions/gateway.exception';
export { InvalidRequestException } from './session/exceptions/invalid-request.exception';
export { NotBoundException } from './session/exceptions/not-bound.exception';
export { SessionEvictedException } from './session/exceptions/session-evicted.exception';
export { EpochFenceGuard } from './session/guards/epoch-fence.guard';
export { ResumeGuard } from './session/guards/resume.guard';
export { type ConnectionView, OnceRpcContext } from './session/once-rpc-context';
export { type SessionBinding } from './session/session-binding';
export { type SessionGate } from './session/session-gate';
export { fenceRefusal } from './session/guards/epoch-fence.guard';
export {
  type FenceVerdict,
  type ResumeVerdict,
  type SessionFacts,
  fenceVerdict,
  resumeVerdict,
} from './session/session-verdict';
