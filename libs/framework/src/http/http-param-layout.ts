import { ROUTE_ARGS_METADATA, RouteParamtypes } from '../nest/nest-internals';

/**
 * What an `@Idempotent` route's parameter is to once:
 * `data`, an argument journaled with the request and handed to the apply
 * step as journaled (`@Body()`, `@Param()`, `@Query()`, `@Headers()`,
 * `@Ip()`, `@HostParam()`, a custom parameter decorator); `context`, the
 * apply context (`@ApplyCtx()`); `none`, what exists only live and is
 * `undefined` at apply (`@Req()`, `@Res()`, `@Next()`, `@Session()`, files,
 * the raw body).
 */
export type HttpParamSlot = 'data' | 'context' | 'none';

interface RouteArgMetadata {
  readonly index: number;
  readonly factory?: unknown;
}

/** The parameter kinds that are not data: they hold the live request, or bytes that are not JSON. */
const LIVE_ONLY: ReadonlySet<number> = new Set([
  RouteParamtypes.REQUEST,
  RouteParamtypes.RESPONSE,
  RouteParamtypes.NEXT,
  RouteParamtypes.SESSION,
  RouteParamtypes.FILE,
  RouteParamtypes.FILES,
  RouteParamtypes.RAW_BODY,
]);

/**
 * Reads the parameter layout NestJS recorded for an HTTP route method;
 * `isContext` tells the factory of the apply-context decorator. A
 * parameter without a decorator is `none` (NestJS passes it nothing).
 */
export function readHttpParamLayout(
  classRef: object,
  methodKey: string | symbol,
  isContext: (factory: unknown) => boolean,
): HttpParamSlot[] {
  const metadata = (Reflect.getMetadata(ROUTE_ARGS_METADATA, classRef, methodKey) ?? {}) as Record<
    string,
    RouteArgMetadata
  >;
  const slots: HttpParamSlot[] = [];
  for (const [key, { index, factory }] of Object.entries(metadata)) {
    if (factory !== undefined) {
      slots[index] = isContext(factory) ? 'context' : 'data';
      continue;
    }
    slots[index] = LIVE_ONLY.has(Number(key.split(':')[0])) ? 'none' : 'data';
  }
  for (let i = 0; i < slots.length; i++) slots[i] ??= 'none';
  return slots;
}

/**
 * The journaled data of a request: its arguments as the pipes left them,
 * one per parameter, `null` where the parameter is not data. An argument
 * is journaled as JSON: a class instance a pipe built arrives at the apply
 * step as its plain JSON, live as on replay.
 */
export function journaledArguments(
  layout: readonly HttpParamSlot[],
  args: readonly unknown[],
): unknown[] {
  return layout.map((slot, index) => (slot === 'data' ? (args[index] ?? null) : null));
}

/** The apply step's arguments: the journaled data in place, the apply context where declared. */
export function httpArgumentsFor(
  layout: readonly HttpParamSlot[],
  data: unknown,
  ctx: unknown,
): unknown[] {
  const journaled: readonly unknown[] = Array.isArray(data) ? (data as unknown[]) : [];
  return layout.map((slot, index) => {
    if (slot === 'context') return ctx;
    if (slot === 'data') return journaled[index] ?? undefined;
    return undefined;
  });
}
