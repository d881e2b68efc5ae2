/**
 * The NestJS internals once relies on, in one place.
 *
 * NestJS's semver covers what its packages export from their roots
 * (`@nestjs/core`, `@nestjs/microservices`, ...); a file reached by a deep
 * path (`@nestjs/core/helpers/...`), a non-public field or an undocumented
 * member may move or change in any release. once needs a few of them to run
 * a handler's pipeline as NestJS would (its exception filters, its metadata
 * keys, its pattern routes) and to find its transports. Every one is imported here and only here (an ESLint rule forbids
 * deep `@nestjs/*` imports elsewhere), so a NestJS release that moves one
 * breaks this file alone, and `nest-internals.spec.ts` names what moved.
 *
 * A new internal goes here, with what it is and why once needs it, and into
 * the table of `nest-internals.spec.ts` (which fails while it is missing: it
 * reads the deep imports and the `nest-internal:` marks of this file).
 * `npm run test:nest-lowest` runs that spec against the lowest NestJS
 * version the peer ranges allow.
 */
import { type ContextType, type ExecutionContext, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA as NEST_EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA as NEST_GUARDS_METADATA,
  HTTP_CODE_METADATA as NEST_HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA as NEST_INTERCEPTORS_METADATA,
  METHOD_METADATA as NEST_METHOD_METADATA,
  PATH_METADATA as NEST_PATH_METADATA,
  PIPES_METADATA as NEST_PIPES_METADATA,
  ROUTE_ARGS_METADATA as NEST_ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes as NestRouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import {
  type ApplicationConfig,
  type ModuleRef,
  type ModulesContainer,
  type NestContainer,
} from '@nestjs/core';
import { ExecutionContextHost as NestExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { type InstanceWrapper as NestInstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { type MsPattern } from '@nestjs/microservices';
import { type Observable } from 'rxjs';
import {
  NO_MESSAGE_HANDLER as NEST_NO_MESSAGE_HANDLER,
  PATTERN_EXTRAS_METADATA as NEST_PATTERN_EXTRAS_METADATA,
  PATTERN_HANDLER_METADATA as NEST_PATTERN_HANDLER_METADATA,
  PATTERN_METADATA as NEST_PATTERN_METADATA,
  TRANSPORT_METADATA as NEST_TRANSPORT_METADATA,
} from '@nestjs/microservices/constants';
import { ExceptionFiltersContext as NestExceptionFiltersContext } from '@nestjs/microservices/context/exception-filters-context';
import { PatternHandler as NestPatternHandler } from '@nestjs/microservices/enums/pattern-handler.enum';
import { RpcParamtype as NestRpcParamtype } from '@nestjs/microservices/enums/rpc-paramtype.enum';
import { type RpcExceptionsHandler as NestRpcExceptionsHandler } from '@nestjs/microservices/exceptions/rpc-exceptions-handler';
import { transformPatternToRoute as nestTransformPatternToRoute } from '@nestjs/microservices/utils';

// ---------------------------------------------------------------- @nestjs/common/constants

/**
 * `@nestjs/common/constants` `GUARDS_METADATA`: the key `@UseGuards` writes a
 * class's or a method's guards under. once adds its session guards to a
 * controller's under it, and reads it to tell a bare admission (one whose
 * pipeline holds only once's own guards).
 */
export const GUARDS_METADATA: string = NEST_GUARDS_METADATA;

/**
 * `@nestjs/common/constants` `INTERCEPTORS_METADATA`: the key
 * `@UseInterceptors` writes under. A route with an interceptor is not a bare
 * admission.
 */
export const INTERCEPTORS_METADATA: string = NEST_INTERCEPTORS_METADATA;

/**
 * `@nestjs/common/constants` `PIPES_METADATA`: the key `@UsePipes` writes
 * under. A route with a pipe is not a bare admission.
 */
export const PIPES_METADATA: string = NEST_PIPES_METADATA;

/**
 * `@nestjs/common/constants` `EXCEPTION_FILTERS_METADATA`: the key
 * `@UseFilters` writes under. A route whose only filter is once's own is
 * still a bare admission.
 */
export const EXCEPTION_FILTERS_METADATA: string = NEST_EXCEPTION_FILTERS_METADATA;

/**
 * `@nestjs/common/constants` `ROUTE_ARGS_METADATA`: the key the parameter
 * decorators (`@Payload()`, `@Ctx()`) write a method's parameter layout
 * under, as `{ '<RpcParamtype>:<index>': { index, data, pipes } }`. once
 * reads it to call a `@Command`'s apply step with its arguments in place,
 * and to answer a bare admission without NestJS's pipeline.
 */
export const ROUTE_ARGS_METADATA: string = NEST_ROUTE_ARGS_METADATA;

/**
 * `@nestjs/common/constants` `PATH_METADATA`: the key `@Controller(path)`
 * and `@Post(path)` (and the other route decorators) write their path (a
 * string or an array) under. once reads it to name an `@Idempotent` route's
 * command pattern (`http:POST /ledger/deposit`).
 */
export const PATH_METADATA: string = NEST_PATH_METADATA;

/**
 * `@nestjs/common/constants` `METHOD_METADATA`: the key the route
 * decorators write their `RequestMethod` under. once reads it for an
 * `@Idempotent` route's pattern, and refuses a route that is not a POST,
 * PUT, PATCH or DELETE.
 */
export const METHOD_METADATA: string = NEST_METHOD_METADATA;

/**
 * `@nestjs/common/constants` `HTTP_CODE_METADATA`: the key `@HttpCode(status)`
 * writes under. An `@Idempotent` route answers its own success status (the
 * one journaled with the request), so it reads the one NestJS would send.
 */
export const HTTP_CODE_METADATA: string = NEST_HTTP_CODE_METADATA;

/**
 * `@nestjs/common/enums/route-paramtypes.enum` `RouteParamtypes`: the
 * parameter kinds of {@link ROUTE_ARGS_METADATA} on an HTTP route (`BODY`
 * for `@Body()`, `PARAM`, `QUERY`, `REQUEST`, ...). once journals the
 * arguments of an `@Idempotent` route that are data and leaves out the
 * request, the response and the like.
 */
export const RouteParamtypes = NestRouteParamtypes;
/** See {@link RouteParamtypes}. */
export type RouteParamtypes = NestRouteParamtypes;

// ---------------------------------------------------------------- @nestjs/microservices

/**
 * `@nestjs/microservices/enums/rpc-paramtype.enum` `RpcParamtype`: the
 * parameter kinds of {@link ROUTE_ARGS_METADATA} (`PAYLOAD` for
 * `@Payload()`, `CONTEXT` for `@Ctx()`).
 */
export const RpcParamtype = NestRpcParamtype;
/** See {@link RpcParamtype}. */
export type RpcParamtype = NestRpcParamtype;

/**
 * `@nestjs/microservices/enums/pattern-handler.enum` `PatternHandler`: what
 * {@link PATTERN_HANDLER_METADATA} holds, `MESSAGE` for `@MessagePattern`,
 * `EVENT` for `@EventPattern`. once tells the two apart in the foreign
 * handlers it refuses to serve.
 */
export const PatternHandler = NestPatternHandler;
/** See {@link PatternHandler}. */
export type PatternHandler = NestPatternHandler;

/**
 * `@nestjs/microservices/constants` `PATTERN_METADATA`: the key
 * `@MessagePattern` and `@EventPattern` write a method's patterns under.
 * once reads it to name the foreign handlers bound to its transport.
 */
export const PATTERN_METADATA: string = NEST_PATTERN_METADATA;

/**
 * `@nestjs/microservices/constants` `PATTERN_HANDLER_METADATA`: the key the
 * pattern decorators write a {@link PatternHandler} under; a method without
 * it is not a NestJS message or event handler.
 */
export const PATTERN_HANDLER_METADATA: string = NEST_PATTERN_HANDLER_METADATA;

/**
 * `@nestjs/microservices/constants` `PATTERN_EXTRAS_METADATA`: the key the
 * pattern decorators write their `extras` argument under. `@Command` and
 * `@Query` mark their own patterns there, so once tells its handlers from
 * foreign ones.
 */
export const PATTERN_EXTRAS_METADATA: string = NEST_PATTERN_EXTRAS_METADATA;

/**
 * `@nestjs/microservices/constants` `TRANSPORT_METADATA`: the key the
 * pattern decorators write their `transport` argument under; a handler
 * declared for another transport is not bound to once's.
 */
export const TRANSPORT_METADATA: string = NEST_TRANSPORT_METADATA;

/**
 * `@nestjs/microservices/constants` `NO_MESSAGE_HANDLER`: what NestJS's TCP
 * server answers for a pattern no handler claims. The gateway's
 * UNKNOWN_PATTERN message begins with it, so an application written for
 * NestJS TCP finds the sentence it looks for.
 */
export const NO_MESSAGE_HANDLER: string = NEST_NO_MESSAGE_HANDLER;

/**
 * `@nestjs/microservices/utils` `transformPatternToRoute`: the string
 * NestJS's servers register and look a pattern up under (an object pattern
 * is its JSON with sorted keys). once registers and journals a pattern
 * under the same string, so a client that sends what NestJS would route
 * reaches the handler.
 */
export function transformPatternToRoute(pattern: MsPattern): string {
  return nestTransformPatternToRoute(pattern);
}

/**
 * `@nestjs/microservices/exceptions/rpc-exceptions-handler`
 * `RpcExceptionsHandler`: the exception filters of one handler, as
 * {@link rpcExceptionFilters} builds them. once calls its
 * `invokeCustomFilters` with what an apply step threw.
 */
export type RpcExceptionsHandler = NestRpcExceptionsHandler;

/** The exception filters of the application's handlers, as NestJS's RPC servers resolve them. */
export interface RpcExceptionFilters {
  /**
   * The filters of `instance[method]` (the method's, its class's, the
   * global ones), with `moduleKey` the token of the module that declares
   * the class (where a filter given as a class is instantiated).
   */
  create(
    instance: object,
    method: (data: unknown) => unknown,
    moduleKey: string,
  ): RpcExceptionsHandler;
}

/**
 * `@nestjs/microservices/context/exception-filters-context`
 * `ExceptionFiltersContext`, over `modules` and the application's `config`
 * (its global filters). once hands an apply step's failure to the filters
 * NestJS would have run for a throw in the handler.
 *
 * It takes a `NestContainer`, of which it reads only `getModules()` (to
 * find the filter instances): once gives it that alone, as it holds no
 * container when it builds the reporter.
 */
export function rpcExceptionFilters(
  modules: ModulesContainer,
  config: ApplicationConfig,
): RpcExceptionFilters {
  const container = { getModules: () => modules } as unknown as NestContainer;
  const context = new NestExceptionFiltersContext(container, config);
  return {
    create: (instance, method, moduleKey) =>
      context.create(instance, method as Parameters<typeof context.create>[1], moduleKey),
  };
}

// ---------------------------------------------------------------- @nestjs/core

/**
 * `@nestjs/core/helpers/execution-context-host` `ExecutionContextHost`, of
 * `type`: the ExecutionContext NestJS hands a guard or a filter of a handler
 * (of an RPC handler, `rpc` with args `[data, context]`). once builds one for
 * the filters it tells of an apply step's failure; its tests build them to
 * run guards and filters as NestJS would.
 */
export function executionContextOf(
  type: ContextType,
  args: unknown[],
  classRef?: Type<unknown>,
  handler?: object,
): ExecutionContext {
  const host = new NestExecutionContextHost(
    args,
    classRef,
    handler as ConstructorParameters<typeof NestExecutionContextHost>[2],
  );
  host.setType(type);
  return host;
}

/**
 * `@nestjs/core/injector/instance-wrapper` `InstanceWrapper`: what
 * `DiscoveryService` returns for a provider or a controller. once reads its
 * `instance`, `metatype`, `name`, `isDependencyTreeStatic()` (a once handler
 * must be a singleton) and its `host` module's `token` and `injectables`.
 */
export type InstanceWrapper = NestInstanceWrapper;

/**
 * The application's `NestContainer`, from the non-public field
 * `ModuleRef.container` (every ModuleRef holds the application's container).
 * NestJS offers no provider for what once reads of it: the
 * `applicationConfig` (the global filters and enhancers its pipelines were
 * built from) and `getHttpAdapterRef()` (whether the app is a hybrid one,
 * whose microservice may have a configuration of its own).
 */
export function nestContainerOf(moduleRef: ModuleRef): NestContainer {
  // nest-internal: @nestjs/core ModuleRef.container
  return (moduleRef as unknown as { container: NestContainer }).container;
}

/**
 * `ModulesContainer.getRpcTargetRegistry()` (`@nestjs/core`, since 11.1.4;
 * not documented): every RPC server (transport strategy) of the application,
 * replayed to a late subscriber, as NestJS creates it. once attaches its
 * runtime to its own strategies as soon as they exist (a hybrid app may
 * start its microservices before module init runs), and its metrics find
 * the once transport there.
 */
export function rpcTargetsOf(modules: ModulesContainer): Observable<unknown> {
  // nest-internal: @nestjs/core ModulesContainer.getRpcTargetRegistry
  return modules.getRpcTargetRegistry();
}
