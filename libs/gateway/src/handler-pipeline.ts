import { type MessageHandler } from '@nestjs/microservices';
import { type OnceRpcContext, ONCE_PATTERN_KIND } from '@once/framework';
import { isObservable, lastValueFrom, type Observable } from 'rxjs';
import { type PatternCatalogue, patternCatalogue } from './pattern-catalogue';

/** The NestJS side the gateway dispatches to: the strategy's registered message handlers. */
export interface HandlerSource {
  getHandlerByPattern(pattern: string): MessageHandler | null;
  getHandlers(): Map<string, MessageHandler>;
  transformToObservable<T>(value: T | Promise<T> | Observable<T>): Observable<T>;
}

/** A refusal's code and message as the client will read them. */
export interface Refusal {
  readonly code: string;
  readonly message: string;
}

const CODE = /^[A-Z][A-Z0-9_]*$/;

/**
 * Runs the NestJS pipeline of a once handler (global, controller and method
 * guards with the session guards first; interceptors; pipes; filters) and
 * tells its failures apart.
 */
export class HandlerPipeline {
  constructor(private readonly handlers: HandlerSource) {}

  /** The handler registered for `pattern` as a @Command or a @Query, if any. */
  handlerFor(pattern: string, kind: 'command' | 'query'): MessageHandler | undefined {
    const handler = this.handlers.getHandlerByPattern(pattern);
    const extras = handler?.extras as Record<string, unknown> | undefined;
    return handler && extras?.[ONCE_PATTERN_KIND] === kind ? handler : undefined;
  }

  /** The once handlers' patterns by kind, for the catalogue QUERY. */
  catalogue(): PatternCatalogue {
    return patternCatalogue(this.handlers.getHandlers());
  }

  /** Runs `handler`'s whole pipeline and takes its last value. */
  async run(handler: MessageHandler, data: unknown, context: OnceRpcContext): Promise<unknown> {
    const returned: unknown = await handler(data, context);
    // Without interceptors NestJS has already run the handler: a command's stub
    // has handed over its ticket and there is nothing to subscribe to.
    if (context.admission && !isObservable(returned)) return returned;
    return lastValueFrom(this.handlers.transformToObservable<unknown>(returned), {
      defaultValue: undefined,
    });
  }
}

/**
 * What a failed pipeline means for the client, decided by where it failed,
 * never by an error's English message:
 * - an error that carries its own code (a `CommandError`, an `RpcException`
 *   thrown with `{ code, message }`) keeps it;
 * - otherwise, a failure before the handler's parameters were resolved is a
 *   guard's (or an interceptor's) refusal: FORBIDDEN;
 * - after that it is a pipe's or the handler's: `fallbackCode`.
 */
export function refusalOf(error: unknown, context: OnceRpcContext, fallbackCode: string): Refusal {
  const stageCode = context.guardsPassed ? fallbackCode : 'FORBIDDEN';
  if (typeof error !== 'object' || error === null)
    return { code: stageCode, message: String(error) };
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : JSON.stringify(error);
  return { code: typeof code === 'string' && CODE.test(code) ? code : stageCode, message: text };
}
