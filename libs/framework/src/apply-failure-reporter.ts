import { Logger, type Type } from '@nestjs/common';
import { ApplicationConfig, type ModulesContainer } from '@nestjs/core';
import { type ApplyContext, type CommandHandler, CommandError } from '@once/engine/internal';
import { isObservable } from 'rxjs';
import {
  type RpcExceptionFilters,
  type RpcExceptionsHandler,
  rpcExceptionFilters,
  executionContextOf,
} from './nest/nest-internals';
import { ReplyNotSingleError } from './reply-shape';
import { RpcExceptionRefusal } from './rpc-error';

type ReportFailure = NonNullable<CommandHandler['reportFailure']>;

/**
 * Hands what a @Command's apply step threw to the application's exception
 * filters, as NestJS does for a throw in a handler on its own transports:
 * the first filter that catches it among the method's, the class's and the
 * global ones (`useGlobalFilters`, `APP_FILTER`), with an `rpc`
 * ArgumentsHost whose args are `[data, ctx]` (the journaled data and the
 * ApplyContext, what the method itself received).
 *
 * Live only, for the filters' side effects (logging, alerting): the engine
 * calls it while the node serves, never on replay, and what a filter returns
 * is ignored, because the committed reply must be the same bytes on every
 * replay. A refusal the framework makes itself (REPLY_NOT_SINGLE) is not an
 * exception of the handler and is not reported; an RpcException is reported
 * as the RpcException it was.
 *
 * The global filters are those of the application's own configuration: in a
 * hybrid app whose once microservice is connected without `inheritAppConfig`,
 * NestJS gives its admission pipeline none of them, yet they are told of
 * apply failures here.
 */
export class ApplyFailureReporter {
  private readonly logger = new Logger('Once');
  private readonly filters: RpcExceptionFilters;

  constructor(modules: ModulesContainer, config: ApplicationConfig | undefined) {
    this.filters = rpcExceptionFilters(modules, config ?? new ApplicationConfig());
  }

  /** The reporter of `instance[methodKey]` (a @Command's admission stub, where its filters are declared). */
  forMethod(instance: object, methodKey: string, moduleKey: string | undefined): ReportFailure {
    const method = (instance as Record<string, unknown>)[methodKey] as <T>(data: T) => never;
    let handler: RpcExceptionsHandler | undefined;
    return (error: unknown, data: unknown, ctx: ApplyContext) => {
      if (error instanceof ReplyNotSingleError) return;
      const exception = error instanceof RpcExceptionRefusal ? error.exception : error;
      // Built at the first failure: filters given as classes are instances by then.
      handler ??= this.filters.create(instance, method, moduleKey ?? '');
      const host = executionContextOf(
        'rpc',
        [data, ctx],
        instance.constructor as Type<unknown>,
        method,
      );
      const where = `${instance.constructor.name}.${methodKey}`;
      this.settle(handler.invokeCustomFilters(exception, host), exception, where, ctx.op);
    };
  }

  /**
   * Runs what a filter returned (NestJS would subscribe to it) and drops its
   * outcome, saying what happened. A CommandError is passed on unchanged by
   * the framework's own CommandErrorFilter, which every @Command carries:
   * that is a refusal the handler chose, committed as it is, and the log
   * says so rather than that a filter answered (the application may have
   * none).
   */
  private settle(result: unknown, exception: unknown, where: string, op: number): void {
    const ignore = (answer: unknown) => {
      if (answer === exception && exception instanceof CommandError) {
        this.logger.debug?.(
          `${where} refused op ${op} with CommandError ${exception.code}: a committed refusal, its reply is the refusal (no exception filter changed it)`,
        );
        return;
      }
      this.logger.debug?.(
        `an exception filter of ${where} answered ${describeAnswer(answer)} at op ${op}; the committed reply stays the handler's (filters at apply run for their side effects only)`,
      );
    };
    if (isObservable(result)) {
      result.subscribe({ error: ignore });
    } else if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
      (result as PromiseLike<unknown>).then(undefined, ignore);
    }
  }
}

/** A filter's answer for the log: an error as its name and message, anything else as JSON. */
function describeAnswer(answer: unknown): string {
  if (answer instanceof Error) return String(answer);
  try {
    return JSON.stringify(answer) ?? String(answer);
  } catch {
    return String(answer);
  }
}
