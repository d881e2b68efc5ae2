import { type ApplicationConfig } from '@nestjs/core';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
  RpcParamtype,
} from './nest/nest-internals';
import { CommandErrorFilter } from './command-error.filter';
import { isOnceStageFactory } from './decorators/once-pipeline';
import { ONCE_COMMAND_METADATA } from './once.constants';
import { type OnceRpcContext } from './session/once-rpc-context';
import { EpochFenceGuard, checkEpochFence } from './session/guards/epoch-fence.guard';
import { ResumeGuard, checkResume } from './session/guards/resume.guard';

/** Where a `@Command`'s admission stub lives, as NestJS registered it: a controller's method. */
export interface CommandSite {
  readonly instance: object;
  readonly methodKey: string;
  /**
   * The guard instances NestJS resolves for the controller's module by
   * class (its `injectables`), to tell once's session guards from a
   * replacement (a testing module's `overrideGuard`).
   */
  readonly injectable: (metatype: object) => unknown;
}

/** What is known of the application around the once microservice. */
export interface PipelineScope {
  /**
   * The configuration NestJS built the microservice's pipelines from, or
   * undefined when it cannot be known (a hybrid app: a microservice connected
   * without `inheritAppConfig` has a configuration of its own, out of reach).
   */
  readonly config: ApplicationConfig | undefined;
}

interface RouteArg {
  readonly index: number;
  readonly data?: unknown;
  readonly pipes?: readonly unknown[];
  readonly factory?: unknown;
}

/**
 * The admission of a `@Command` whose NestJS pipeline holds nothing but once's
 * own pieces: the session guards (ResumeGuard, EpochFenceGuard), the
 * CommandErrorFilter (it rethrows), the payload and context parameters
 * without pipes and the stage parameter. Such a pipeline does exactly this:
 * the session guards' rules in their order, the stage mark, then the
 * admission stub with the parameters NestJS would resolve. Running it
 * directly gives the same ticket, the same refusals and the same side
 * effects (a resume binding), without NestJS's promises, guard and pipe
 * consumers and exception zone: about a tenth of the main thread's time per
 * command under load.
 *
 * Anything else on the pipeline, at the method, the controller or globally
 * (`useGlobal*` or an APP_GUARD, APP_PIPE, APP_INTERCEPTOR or APP_FILTER
 * provider), or a configuration out of reach, and there is no bare
 * admission: NestJS runs the pipeline.
 */
export class BareAdmission {
  private constructor(
    private readonly instance: object,
    private readonly stub: (...args: unknown[]) => unknown,
    private readonly slots: ReadonlyArray<(data: unknown, context: OnceRpcContext) => unknown>,
  ) {}

  /**
   * The bare admission of the command at `site`, or undefined when its
   * pipeline holds anything it would not run.
   */
  static of(site: CommandSite, scope: PipelineScope): BareAdmission | undefined {
    const { instance, methodKey } = site;
    const stub = (instance as Record<string, unknown>)[methodKey];
    if (typeof stub !== 'function' || !Reflect.hasMetadata(ONCE_COMMAND_METADATA, stub)) {
      return undefined;
    }
    const controller = instance.constructor;
    if (!scope.config || hasGlobalEnhancers(scope.config)) return undefined;
    if (!onlySessionGuards(controller, site) || metadataOf(GUARDS_METADATA, stub).length > 0) {
      return undefined;
    }
    for (const key of [INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA]) {
      if (metadataOf(key, controller).length > 0) return undefined;
    }
    if (metadataOf(INTERCEPTORS_METADATA, stub).length > 0) return undefined;
    if (metadataOf(PIPES_METADATA, stub).length > 0) return undefined;
    const filters = metadataOf(EXCEPTION_FILTERS_METADATA, stub);
    if (filters.some((filter) => filter !== CommandErrorFilter)) return undefined;
    const slots = parameterSlots(controller, methodKey);
    if (!slots) return undefined;
    return new BareAdmission(instance, stub as (...args: unknown[]) => unknown, slots);
  }

  /**
   * Admits `data` as the pipeline would: throws what a session guard throws
   * (recorded on `context` as its session refusal); otherwise the stub hands
   * its ticket to `context` and it is returned.
   */
  run(data: unknown, context: OnceRpcContext): unknown {
    checkResume(context);
    checkEpochFence(context);
    const args = this.slots.map((slot) => slot(data, context));
    return this.stub.apply(this.instance, args);
  }
}

function metadataOf(key: string, target: object): readonly unknown[] {
  const value = Reflect.getMetadata(key, target) as readonly unknown[] | undefined;
  return value ?? [];
}

function hasGlobalEnhancers(config: ApplicationConfig): boolean {
  return (
    config.getGlobalGuards().length > 0 ||
    config.getGlobalPipes().length > 0 ||
    config.getGlobalInterceptors().length > 0 ||
    config.getGlobalFilters().length > 0 ||
    config.getGlobalRequestGuards().length > 0 ||
    config.getGlobalRequestPipes().length > 0 ||
    config.getGlobalRequestInterceptors().length > 0 ||
    config.getGlobalRequestFilters().length > 0
  );
}

/** The controller's guards are once's session guards, as once's own classes, and nothing else. */
function onlySessionGuards(controller: object, site: CommandSite): boolean {
  const guards = metadataOf(GUARDS_METADATA, controller);
  if (guards.length !== 2 || guards[0] !== ResumeGuard || guards[1] !== EpochFenceGuard) {
    return false;
  }
  return guards.every((guard) => {
    const resolved = site.injectable(guard as object);
    return resolved === undefined || (resolved as object).constructor === guard;
  });
}

/**
 * How NestJS resolves each parameter of the stub, when every one is a
 * payload (whole or keyed), the rpc context or the stage parameter, none
 * with a pipe; undefined otherwise.
 */
function parameterSlots(
  controller: object,
  methodKey: string,
): Array<(data: unknown, context: OnceRpcContext) => unknown> | undefined {
  const metadata = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodKey) as
    Record<string, RouteArg> | undefined;
  if (!metadata) return undefined;
  const slots: Array<(data: unknown, context: OnceRpcContext) => unknown> = [];
  for (const [key, arg] of Object.entries(metadata)) {
    if ((arg.pipes?.length ?? 0) > 0) return undefined;
    const slot = slotOf(key, arg);
    if (!slot) return undefined;
    slots[arg.index] = slot;
  }
  // NestJS passes undefined where no decorator declared a parameter.
  for (let i = 0; i < slots.length; i++) slots[i] ??= () => undefined;
  return slots;
}

function slotOf(
  key: string,
  arg: RouteArg,
): ((data: unknown, context: OnceRpcContext) => unknown) | undefined {
  if (isOnceStageFactory(arg.factory)) {
    return (_data, context) => {
      context.guardsPassed = true;
      return context;
    };
  }
  const type = Number(key.split(':')[0]);
  if (type === Number(RpcParamtype.CONTEXT)) return (_data, context) => context;
  if (type !== Number(RpcParamtype.PAYLOAD)) return undefined;
  const field = arg.data;
  if (field === undefined || field === null || field === '') return (data) => data;
  if (typeof field !== 'string') return undefined;
  // NestJS's payload key: `data?.[key]` of the request's data (an object here).
  return (data) => (data as Record<string, unknown> | null | undefined)?.[field];
}
