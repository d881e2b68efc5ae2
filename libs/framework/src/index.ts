/**
 * The public API of `@once/framework`: what a team writes its modules with.
 * Everything exported here is covered by the version's semver and listed in
 * `api/framework.api.md`; what the sibling packages need besides is in
 * `@once/framework/internal`, which a team never imports.
 *
 * @packageDocumentation
 * @public
 */
export { Admit, type AdmitOptions } from './decorators/admit.decorator';
export { Command, type CommandOptions } from './decorators/command.decorator';
export { type CommandDisclosure } from './command-disclosure';
export { Query } from './decorators/query.decorator';
export { ApplyCtx, Idempotent, type IdempotentOptions } from './http/idempotent.decorator';
export { type HttpPrincipal } from './http/http-principal';
export { type OnceHttpOptions } from './http/once-http-options.interface';
export {
  ReplicatedState,
  type ReplicatedStateOptions,
} from './decorators/replicated-state.decorator';
export { HandlerDiscoveryError } from './handler-scan';
export { ForeignHandlerError } from './foreign-handlers';
export { type OncePattern } from './once-pattern';
export { ReplyNotSingleError } from './reply-shape';
export { type OnceAuthenticator } from './once-authenticator.interface';
export {
  type OnceModuleAsyncOptions,
  type OnceModuleOptions,
} from './once-module-options.interface';
export { ClusterOptionMovedError } from './cluster-option-moved.error';
export { OnceModule } from './once.module';
export { OnceRuntime } from './once-runtime';
export { ONCE_AUTHENTICATOR } from './once.constants';
// The engine's names a module author needs: published here, so one import
// serves and each name has one public import path.
export {
  type AdmissionContext,
  type ApplyContext,
  CommandError,
  type CommandErrorOptions,
  type ConnectionScopedState,
  type GenesisCommand,
  KeyedMap,
  KeyedSet,
  KeyedState,
  type ModuleState,
  type OnceNodeFactory,
  SYSTEM_USER_ID,
} from '@once/engine/internal';
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
export { type SessionFacts } from './session/session-verdict';
