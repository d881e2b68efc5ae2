import { methodNamesOf } from './handler-scan';
import {
  PATTERN_EXTRAS_METADATA,
  PATTERN_HANDLER_METADATA,
  PATTERN_METADATA,
  PatternHandler,
  TRANSPORT_METADATA,
} from './nest/nest-internals';
import { type OncePattern, patternLabel, routeOf } from './once-pattern';
import { ONCE_PATTERN_KIND, ONCE_TRANSPORT } from './once.constants';

/**
 * A NestJS `@MessagePattern` or `@EventPattern` handler (not a `@Command` or
 * `@Query`) that NestJS binds to the once transport: declared for it, or
 * declared without a transport (NestJS then binds it to every server).
 */
export interface ForeignHandler {
  /** `Class.method`. */
  readonly owner: string;
  readonly routes: readonly string[];
  readonly kind: 'event' | 'message';
  /** Declared with the once transport (`ONCE_TRANSPORT`), not merely without one. */
  readonly declaredForOnce: boolean;
}

/** Raised by `OnceServer.listen` when a handler NestJS binds to it cannot be served by it. */
export class ForeignHandlerError extends Error {
  readonly code = 'NOT_A_ONCE_HANDLER';
  constructor(
    message: string,
    readonly handlers: readonly ForeignHandler[],
  ) {
    super(message);
    this.name = 'ForeignHandlerError';
  }
}

/** The foreign handlers of `controllers` (NestJS registers message handlers from controllers only). */
export function foreignHandlersOf(controllers: Iterable<object>): ForeignHandler[] {
  const found: ForeignHandler[] = [];
  for (const controller of controllers) {
    const prototype = Object.getPrototypeOf(controller) as object;
    for (const methodKey of methodNamesOf(controller)) {
      const method = (prototype as Record<string, unknown>)[methodKey];
      const handlerType = Reflect.getMetadata(PATTERN_HANDLER_METADATA, method as object) as
        PatternHandler | undefined;
      if (handlerType === undefined) continue;
      const extras = Reflect.getMetadata(PATTERN_EXTRAS_METADATA, method as object) as
        Record<string, unknown> | undefined;
      if (extras?.[ONCE_PATTERN_KIND] !== undefined) continue;
      const transport = Reflect.getMetadata(TRANSPORT_METADATA, method as object) as unknown;
      if (transport !== undefined && transport !== ONCE_TRANSPORT) continue;
      const patterns = (Reflect.getMetadata(PATTERN_METADATA, method as object) ??
        []) as OncePattern[];
      found.push({
        owner: `${controller.constructor.name}.${methodKey}`,
        routes: patterns.map(routeOf),
        kind: handlerType === PatternHandler.EVENT ? 'event' : 'message',
        declaredForOnce: transport === ONCE_TRANSPORT,
      });
    }
  }
  return found;
}

/**
 * Why a once server refuses to listen, or nothing. A foreign handler bound to
 * it would never run: a once client's request is a journaled COMMAND or a
 * QUERY, answered only by a `@Command` or a `@Query`, so a client's `emit()` to an
 * `@EventPattern` would be refused UNKNOWN_PATTERN at every call. That is
 * refused here, at bootstrap, naming the handler and what to write instead.
 *
 * A handler declared without a transport is legitimate in a hybrid app that
 * has another microservice transport (NestJS binds it there too, and that is
 * where it runs), so it is refused only when `otherTransports` is 0. One
 * declared for the once transport is always refused.
 */
export function foreignHandlerError(
  handlers: readonly ForeignHandler[],
  otherTransports: number,
): ForeignHandlerError | undefined {
  const refused = handlers.filter((handler) => handler.declaredForOnce || otherTransports === 0);
  if (refused.length === 0) return undefined;
  const lines = refused.flatMap((handler) =>
    handler.routes.map((route) => `- ${whyRefused(handler, patternLabel(route))}`),
  );
  return new ForeignHandlerError(
    `the once transport serves only @Command and @Query handlers; ${refused.length === 1 ? 'this handler is' : 'these handlers are'} bound to it:\n${lines.join('\n')}`,
    refused,
  );
}

function whyRefused(handler: ForeignHandler, label: string): string {
  if (handler.kind === 'event') {
    return `${handler.owner}: @EventPattern(${label}) is bound to the once transport. On once, events are journaled commands: use @Command(${label}) (a client's emit() sends it exactly once and completes when it is committed), or bind the handler to another transport (@EventPattern(${label}, Transport.TCP)) in a hybrid app.`;
  }
  return `${handler.owner}: @MessagePattern(${label}) is bound to the once transport: use @Command(${label}) for a change (journaled, applied exactly once) or @Query(${label}) for a read, or bind the handler to another transport (@MessagePattern(${label}, Transport.TCP)) in a hybrid app.`;
}
