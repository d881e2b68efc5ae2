import { Logger } from '@nestjs/common';
import { type MessageHandler, RpcException } from '@nestjs/microservices';
import { CommandError, type OnceRpcContext } from '@once/framework';
import { describeError, newErrorId } from '@once/engine/internal';
import {
  type BareAdmission,
  ONCE_PATTERN_KIND,
  ONCE_PATTERN_ROUTE,
  REPLY_NOT_SINGLE,
  queryStreamMessage,
  refusalFieldsOf,
  rpcErrorOf,
} from '@once/framework/internal';
import { isObservable, lastValueFrom, type Observable, take } from 'rxjs';
import { type PatternCatalogue, patternCatalogue } from './pattern-catalogue';

/** The NestJS side the gateway dispatches to: the strategy's registered message handlers. */
export interface HandlerSource {
  getHandlerByPattern(pattern: string): MessageHandler | null;
  getHandlers(): Map<string, MessageHandler>;
  transformToObservable<T>(value: T | Promise<T> | Observable<T>): Observable<T>;
}

/** Where failures with no client-facing content are logged, with their error id. */
export interface FailureLog {
  error(message: string): void;
}

/** A refusal's code and message as the client will read them, and its `rpcError` if any. */
export interface Refusal {
  readonly code: string;
  readonly message: string;
  readonly rpcError?: unknown;
}

/** What a query's pipeline is refused with when its handler emitted more than one value. */
export class QueryStreamError extends Error {
  readonly code = REPLY_NOT_SINGLE;
  constructor(route: string) {
    super(queryStreamMessage(route));
  }
}

/**
 * What NestJS's own exception filter answers for an exception it knows
 * nothing about (it logs the exception): `{ status: 'error', message:
 * 'Internal server error' }`.
 */
const NEST_UNKNOWN_ERROR = 'Internal server error';

/**
 * Runs the NestJS pipeline of a once handler (global, controller and method
 * guards with the session guards first; interceptors; pipes; filters) and
 * tells its failures apart.
 */
export class HandlerPipeline {
  /** Each command handler's bare admission, or null when NestJS must run its pipeline. */
  private readonly bare = new Map<MessageHandler, BareAdmission | null>();

  constructor(
    private readonly handlers: HandlerSource,
    /** Where {@link refusalOf} logs the failures it answers with an error id. */
    readonly failureLog: FailureLog = new Logger('OnceGateway'),
    /**
     * The bare admission of a command route (`OnceRuntime.bareAdmission`).
     * Default: none; every command runs its NestJS pipeline.
     */
    private readonly bareAdmissionOf: (route: string) => BareAdmission | undefined = () =>
      undefined,
  ) {}

  /**
   * How `handler`'s command is admitted: its {@link BareAdmission} when its
   * pipeline holds nothing but once's own pieces (the same outcome without
   * NestJS's machinery), else undefined: {@link run} it.
   */
  bareAdmission(handler: MessageHandler): BareAdmission | undefined {
    let bare = this.bare.get(handler);
    if (bare === undefined) {
      const route = this.routeOf(handler);
      bare = (route !== undefined ? this.bareAdmissionOf(route) : undefined) ?? null;
      this.bare.set(handler, bare);
    }
    return bare ?? undefined;
  }

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

  /**
   * The route a once handler was registered under: the string its pattern is
   * journaled and applied under (NestJS's route of an object pattern, which
   * a request may spell with its keys in another order).
   */
  routeOf(handler: MessageHandler): string | undefined {
    const route = (handler.extras as Record<string, unknown> | undefined)?.[ONCE_PATTERN_ROUTE];
    return typeof route === 'string' ? route : undefined;
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

  /**
   * Runs a query's whole pipeline and takes its one value (undefined when it
   * emitted none); rejects with {@link QueryStreamError} at a second value,
   * which ends the subscription: a once reply is one value.
   */
  async runQuery(
    handler: MessageHandler,
    data: unknown,
    context: OnceRpcContext,
  ): Promise<unknown> {
    const returned: unknown = await handler(data, context);
    const stream = this.handlers.transformToObservable<unknown>(returned);
    const route = this.routeOf(handler) ?? context.getPattern();
    return new Promise<unknown>((resolve, reject) => {
      let count = 0;
      let value: unknown;
      stream.pipe(take(2)).subscribe({
        next: (next) => {
          count++;
          value = next;
        },
        error: reject,
        complete: () => (count > 1 ? reject(new QueryStreamError(route)) : resolve(value)),
      });
    });
  }
}

/**
 * What a failed pipeline means for the client, decided by where it failed,
 * never by an error's English message. The pipeline's NestJS exception
 * filters have already turned the exception into what NestJS TCP would send
 * the client (an RpcException's error object, a filter's output, or NestJS's
 * `{ status: 'error', message: 'Internal server error' }` for an exception it
 * does not know); that value is the refusal's `rpcError`, and:
 * - its `code`, when it is an UPPER_SNAKE string, is the refusal's (a
 *   `CommandError`, an `RpcException` thrown with `{ code, message }`);
 * - otherwise a failure before the handler's parameters were resolved is a
 *   guard's (or an interceptor's) refusal: FORBIDDEN; after that it is a
 *   pipe's or the handler's: `fallbackCode`.
 *
 * Its message is the value's own, as its author wrote it; but an exception
 * NestJS did not know (a plain Error, whose message may hold anything) is
 * answered with an error id only, logged to `log` with what is known.
 */
export function refusalOf(
  error: unknown,
  context: OnceRpcContext,
  fallbackCode: string,
  log?: FailureLog,
): Refusal {
  const stageCode = context.guardsPassed ? fallbackCode : 'FORBIDDEN';
  if (error instanceof QueryStreamError) return { code: error.code, message: error.message };
  // CommandErrorFilter passes a CommandError on as it is; a team's filter may rethrow either.
  if (error instanceof CommandError) {
    return { code: error.code, message: error.message, rpcError: error.rpcError };
  }
  if (error instanceof RpcException) return refusalFieldsOf(rpcErrorOf(error), stageCode);
  if (isNestUnknownError(error) || error instanceof Error) {
    const errorId = newErrorId();
    const detail =
      error instanceof Error
        ? describeError(error)
        : "NestJS's exception filter answered Internal server error (it logs the exception as RpcExceptionsHandler unless it is one of NestJS's HTTP exceptions)";
    log?.error(
      `${stageCode} ${JSON.stringify(context.getPattern())} for user ${context.getUserId() ?? '-'} (error ${errorId}): ${detail}`,
    );
    const message = `the request failed (error ${errorId}); the server log has the details`;
    return error instanceof Error
      ? { code: stageCode, message }
      : { code: stageCode, message, rpcError: error };
  }
  return refusalFieldsOf(error, stageCode);
}

function isNestUnknownError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { status, message, ...rest } = error as Record<string, unknown>;
  return status === 'error' && message === NEST_UNKNOWN_ERROR && Object.keys(rest).length === 0;
}
