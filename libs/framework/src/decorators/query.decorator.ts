import { applyDecorators, SetMetadata, UseFilters } from '@nestjs/common';
import { CommandErrorFilter } from '../command-error.filter';
import { MessagePattern } from '@nestjs/microservices';
import { ONCE_PATTERN_KIND, ONCE_QUERY_METADATA } from '../once.constants';

/**
 * Marks a method as a read query: served from the state after every committed
 * entry, never journaled. It runs through the full NestJS pipeline (guards,
 * interceptors, pipes, filters) with an rpc context whose `getContext()` is the
 * request's `OnceRpcContext`. It must not change replicated state.
 */
export function Query(pattern: string): MethodDecorator {
  return applyDecorators(
    SetMetadata(ONCE_QUERY_METADATA, { pattern }),
    MessagePattern(pattern, { [ONCE_PATTERN_KIND]: 'query' }),
    // Keeps a CommandError's code in microservices that do not inherit the app's global filters.
    UseFilters(CommandErrorFilter),
  );
}
