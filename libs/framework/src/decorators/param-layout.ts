import { ROUTE_ARGS_METADATA, RpcParamtype } from '../nest/nest-internals';

/** Where a handler wants the payload (or one key of it) and the context. */
export type ParamSlot =
  { kind: 'payload'; key: string | undefined } | { kind: 'context' } | { kind: 'other' };

interface RouteArgMetadata {
  index: number;
  data?: unknown;
}

/**
 * Reads the `@Payload()` / `@Ctx()` parameter layout NestJS recorded for a
 * method. `undefined` when the method has no parameter decorators (then it is
 * called positionally: `(data, ctx)`).
 */
export function readParamLayout(
  classRef: object,
  methodKey: string | symbol,
): ParamSlot[] | undefined {
  const metadata = Reflect.getMetadata(ROUTE_ARGS_METADATA, classRef, methodKey) as
    Record<string, RouteArgMetadata> | undefined;
  if (!metadata || Object.keys(metadata).length === 0) return undefined;
  const slots: ParamSlot[] = [];
  for (const [key, { index, data }] of Object.entries(metadata)) {
    const type = Number(key.split(':')[0]);
    slots[index] =
      type === Number(RpcParamtype.PAYLOAD)
        ? { kind: 'payload', key: typeof data === 'string' ? data : undefined }
        : type === Number(RpcParamtype.CONTEXT)
          ? { kind: 'context' }
          : { kind: 'other' };
  }
  for (let i = 0; i < slots.length; i++) slots[i] ??= { kind: 'other' };
  return slots;
}

/** Builds the argument list for `layout` (positional `(data, ctx)` without one). */
export function argumentsFor(
  layout: ParamSlot[] | undefined,
  data: unknown,
  ctx: unknown,
): unknown[] {
  if (!layout) return [data, ctx];
  return layout.map((slot) => {
    if (slot.kind === 'context') return ctx;
    if (slot.kind === 'payload') {
      if (slot.key === undefined) return data;
      return typeof data === 'object' && data !== null
        ? (data as Record<string, unknown>)[slot.key]
        : undefined;
    }
    return undefined;
  });
}
