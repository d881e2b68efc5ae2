import { applyDecorators, SetMetadata, UseFilters } from '@nestjs/common';
import { CommandErrorFilter } from '../command-error.filter';
import { MessagePattern } from '@nestjs/microservices';
import { type OncePattern, routeOf } from '../once-pattern';
import {
  ONCE_PATTERN_KIND,
  ONCE_PATTERN_ROUTE,
  ONCE_QUERY_METADATA,
  ONCE_TRANSPORT,
} from '../once.constants';
import { appendStageParam, attachSessionGuards } from './once-pipeline';
import { readParamLayout } from './param-layout';

/**
 * Marks a method as a read query: served from the state after every committed
 * entry, never journaled, on the once transport only (it answers for a
 * session). The session guards run first among the controller's guards. It runs through the full NestJS pipeline (guards,
 * interceptors, pipes, filters) with an rpc context whose `getContext()` is the
 * request's `OnceRpcContext`. It must not change replicated state.
 *
 * It may be async and may return an Observable, but replies once: an
 * Observable that emits more than one value is refused REPLY_NOT_SINGLE
 * (NestJS TCP would stream them). `pattern` is a name or an object, routed as
 * NestJS routes it.
 */
export function Query(pattern: OncePattern): MethodDecorator {
  const route = routeOf(pattern);
  return (target, key, descriptor) => {
    // Read before the stage parameter is added: a method without parameter
    // decorators keeps being called with the payload first.
    appendStageParam(target, key, readParamLayout(target.constructor, key));
    applyDecorators(
      SetMetadata(ONCE_QUERY_METADATA, { pattern: route }),
      MessagePattern(pattern, ONCE_TRANSPORT, {
        [ONCE_PATTERN_KIND]: 'query',
        [ONCE_PATTERN_ROUTE]: route,
      }),
      // Keeps a CommandError's code in microservices that do not inherit the app's global filters.
      UseFilters(CommandErrorFilter),
    )(target, key, descriptor);
    attachSessionGuards(target.constructor);
    return descriptor;
  };
}
