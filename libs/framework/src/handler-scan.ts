import {
  type CommandHandler,
  type ModuleState,
  type StateDeclaration,
} from '@once/engine/internal';
import { type ReplicatedStateMetadata } from './decorators/replicated-state.decorator';
import { type ParamSlot, argumentsFor } from './decorators/param-layout';
import { httpArgumentsFor } from './http/http-param-layout';
import { IdempotentRouteError, httpRouteOf } from './http/http-route';
import { type IdempotentMetadata } from './http/idempotent.decorator';
import { patternLabel } from './once-pattern';
import {
  ONCE_ADMIT_METADATA,
  ONCE_APPLY_METADATA,
  ONCE_COMMAND_METADATA,
  ONCE_HTTP_METADATA,
  ONCE_STATE_METADATA,
} from './once.constants';
import { commandReplyOf } from './reply-shape';
import { asCommandError } from './rpc-error';

type AnyMethod = (...args: unknown[]) => unknown;
type ReportFailure = NonNullable<CommandHandler['reportFailure']>;

/** Raised at startup when the decorated handlers do not form a valid set. */
export class HandlerDiscoveryError extends Error {
  readonly code = 'HANDLER_DISCOVERY';
}

/** The handlers and states found on a set of instances. */
export interface ScannedHandlers {
  readonly commands: CommandHandler[];
  /** Each state with its name and its code's version. */
  readonly states: StateDeclaration[];
}

/**
 * The state whose version the `@Command` methods of `instance` read when they
 * name none (`@Command(pattern, { state })`): NestJS discovery passes the
 * state of the instance's own module when it has exactly one.
 */
export type StateOwners = (instance: object) => string | undefined;

/**
 * Gives the reporter of one `@Command` method (`instance[methodKey]`): whom to
 * tell, live, that its apply step threw. NestJS discovery passes one that
 * calls the application's exception filters.
 */
export type FailureReporters = (instance: object, methodKey: string) => ReportFailure | undefined;

/** The code a refusal gets when an RpcException thrown by apply carries none. */
const APPLY_RPC_CODE = 'RPC_EXCEPTION';
/** The code a refusal gets when an RpcException thrown by `@Admit` carries none. */
const ADMIT_RPC_CODE = 'ADMISSION_REFUSED';

/**
 * Collects `@Command` apply steps, their `@Admit` steps and `@ReplicatedState`
 * instances from already-built objects. NestJS discovery feeds it the
 * application's providers and controllers; plain code and tests can feed it
 * instances they built themselves.
 *
 * Each apply step is wrapped the way NestJS TCP would answer it, within what
 * a replayed step allows: an Observable's single synchronous value is the
 * reply (see `commandReplyOf`), and an RpcException becomes the committed
 * refusal that carries its error object. A method declared `async` (or
 * returning a Promise by its declared type) is refused here, at bootstrap.
 */
export function scanHandlers(
  instances: Iterable<object>,
  reporters: FailureReporters = () => undefined,
  stateOwners: StateOwners = () => undefined,
): ScannedHandlers {
  const applies = new Map<string, { handler: CommandHandler; owner: string }>();
  const admits = new Map<
    string,
    { admit: NonNullable<CommandHandler['admit']>; owner: string; secretBody: boolean }
  >();
  const states: StateDeclaration[] = [];
  const seen = new Set<object>();

  for (const instance of instances) {
    if (seen.has(instance)) continue;
    seen.add(instance);
    const declared = stateMetadataOf(instance.constructor);
    if (declared !== undefined) {
      states.push([declared.name, instance as ModuleState, declared.version]);
    }

    for (const methodKey of methodNamesOf(instance)) {
      const method = (instance as Record<string, unknown>)[methodKey];
      if (typeof method !== 'function') continue;
      const owner = `${instance.constructor.name}.${methodKey}`;
      const command = Reflect.getMetadata(ONCE_COMMAND_METADATA, method) as
        { pattern: string; layout: ParamSlot[] | undefined; state?: string } | undefined;
      if (command) {
        const previous = applies.get(command.pattern);
        if (previous) {
          throw new HandlerDiscoveryError(
            `@Command(${patternLabel(command.pattern)}) is declared by both ${previous.owner} and ${owner}`,
          );
        }
        const original = Reflect.getMetadata(ONCE_APPLY_METADATA, method) as AnyMethod;
        assertSynchronous(instance, methodKey, original, command.pattern, owner);
        // The parameters as the team declared them, without the admission-only stage parameter.
        const handler = applyHandler(
          instance,
          original,
          command.pattern,
          (data, ctx) => argumentsFor(command.layout, data, ctx),
          reporters(instance, methodKey),
        );
        const state = command.state ?? stateOwners(instance);
        applies.set(command.pattern, { handler: { ...handler, state }, owner });
      }
      const http = Reflect.getMetadata(ONCE_HTTP_METADATA, method) as
        IdempotentMetadata | undefined;
      if (http) {
        const pattern = idempotentRouteOf(instance, method, owner).pattern;
        const previous = applies.get(pattern);
        if (previous) {
          throw new HandlerDiscoveryError(
            `the route ${pattern.slice('http:'.length)} is declared @Idempotent by both ${previous.owner} and ${owner}`,
          );
        }
        const original = Reflect.getMetadata(ONCE_APPLY_METADATA, method) as AnyMethod;
        assertSynchronous(instance, methodKey, original, pattern, owner, 'http');
        const handler = applyHandler(
          instance,
          original,
          pattern,
          (data, ctx) => httpArgumentsFor(http.layout, data, ctx),
          reporters(instance, methodKey),
        );
        const state = http.options.state ?? stateOwners(instance);
        applies.set(pattern, { handler: { ...handler, state }, owner });
      }
      const admit = Reflect.getMetadata(ONCE_ADMIT_METADATA, method) as
        { pattern: string; secretBody?: boolean } | undefined;
      if (admit) {
        const previous = admits.get(admit.pattern);
        if (previous) {
          throw new HandlerDiscoveryError(
            `@Admit(${patternLabel(admit.pattern)}) is declared by both ${previous.owner} and ${owner}`,
          );
        }
        admits.set(admit.pattern, {
          admit: admitStep(instance, method as AnyMethod),
          owner,
          secretBody: admit.secretBody === true,
        });
      }
    }
  }
  for (const [pattern, { owner }] of admits) {
    if (!applies.has(pattern)) {
      const label = patternLabel(pattern);
      throw new HandlerDiscoveryError(`@Admit(${label}) on ${owner} has no @Command(${label})`);
    }
  }
  const commands = [...applies].map(([pattern, { handler }]) => {
    const admit = admits.get(pattern);
    return admit?.secretBody
      ? { ...handler, admit: admit.admit, secretBody: true }
      : { ...handler, admit: admit?.admit };
  });
  const names = new Set(states.map(([name]) => name));
  for (const [pattern, { handler, owner }] of applies) {
    if (handler.state !== undefined && !names.has(handler.state)) {
      throw new HandlerDiscoveryError(
        `@Command(${patternLabel(pattern)}) on ${owner} belongs to the state "${handler.state}", which no @ReplicatedState provides`,
      );
    }
  }
  return { commands, states };
}

/**
 * The name and version `@ReplicatedState` recorded on `type`; undefined
 * when it is not a replicated state. A bare name (an older build's
 * decorator) is version 1.
 */
export function stateMetadataOf(type: unknown): ReplicatedStateMetadata | undefined {
  if (typeof type !== 'function') return undefined;
  const metadata = Reflect.getMetadata(ONCE_STATE_METADATA, type) as
    ReplicatedStateMetadata | string | undefined;
  if (metadata === undefined) return undefined;
  return typeof metadata === 'string' ? { name: metadata, version: 1 } : metadata;
}

/**
 * The engine's handler for a `@Command` or an `@Idempotent` route: its apply
 * step, called with the arguments `argumentsOf` lays out, shaped as described
 * at {@link scanHandlers}.
 */
function applyHandler(
  instance: object,
  original: AnyMethod,
  pattern: string,
  argumentsOf: (...step: Parameters<CommandHandler['apply']>) => unknown[],
  reportFailure: ReportFailure | undefined,
): CommandHandler {
  return {
    pattern,
    apply: (data, ctx) => {
      try {
        return commandReplyOf(original.apply(instance, argumentsOf(data, ctx)), pattern);
      } catch (error) {
        throw asCommandError(error, APPLY_RPC_CODE);
      }
    },
    reportFailure,
  };
}

/** An `@Admit` method as the engine calls it; an RpcException it throws is refused with its error object. */
function admitStep(instance: object, method: AnyMethod): NonNullable<CommandHandler['admit']> {
  return async (data, ctx) => {
    try {
      return await method.call(instance, data, ctx);
    } catch (error) {
      throw asCommandError(error, ADMIT_RPC_CODE);
    }
  };
}

/** The route of an `@Idempotent` method, or why it cannot be one (a discovery error). */
export function idempotentRouteOf(instance: object, method: object, owner: string) {
  try {
    return httpRouteOf(instance.constructor, method, owner);
  } catch (error) {
    if (error instanceof IdempotentRouteError) throw new HandlerDiscoveryError(error.message);
    throw error;
  }
}

/**
 * A command's apply step runs when its entry commits and again on every
 * replay, and its reply is cached: it cannot wait for anything. An async
 * method would reply a Promise the engine cannot cache (ASYNC_HANDLER at
 * every call), so it is refused before the node opens.
 */
function assertSynchronous(
  instance: object,
  methodKey: string,
  original: AnyMethod,
  pattern: string,
  owner: string,
  decorator: 'command' | 'http' = 'command',
): void {
  const kind = original.constructor?.name;
  const declared = Reflect.getMetadata('design:returntype', instance, methodKey) as unknown;
  if (kind !== 'AsyncFunction' && kind !== 'AsyncGeneratorFunction' && declared !== Promise) return;
  if (decorator === 'http') {
    throw new HandlerDiscoveryError(
      `${owner}: the @Idempotent route ${pattern.slice('http:'.length)} is async (it returns a Promise), but its method is the apply step: it runs when the entry commits and again on every replay, and its response is recorded. Move the async work to a guard or a pipe (they run at admission, before journaling; a pipe's output is what is journaled) and make ${owner} synchronous.`,
    );
  }
  const label = patternLabel(pattern);
  throw new HandlerDiscoveryError(
    `${owner}: @Command(${label}) is async (it returns a Promise), but a command's apply step must be synchronous: it runs when the entry commits and again on every replay, and its reply is cached. Move the async work to an @Admit(${label}) step (what it returns is journaled and handed to apply) and make ${owner} synchronous.`,
  );
}

/** Own and inherited method names, up to (not including) Object.prototype. */
export function methodNamesOf(instance: object): string[] {
  const names = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (descriptor && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}
