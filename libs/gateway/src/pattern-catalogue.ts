import { type MessageHandler } from '@nestjs/microservices';
import { ONCE_PATTERN_KIND } from '@once/framework/internal';

/**
 * The reserved QUERY pattern the gateway answers itself with the patterns of
 * the node's once handlers, `{"commands":[…],"queries":[…]}` (PROTOCOL-NOTES,
 * "Pattern catalogue"). A client learns from it which patterns are reads and
 * sends them as QUERY, without a list kept by hand on its side.
 */
export const PATTERN_CATALOGUE_QUERY = '$once.patterns';

/** The code of a COMMAND whose pattern is a @Query here: a committed refusal. */
export const QUERY_PATTERN_CODE = 'QUERY_PATTERN';

/** Sorted patterns of the once handlers, by kind; plain NestJS handlers are not listed. */
export interface PatternCatalogue {
  readonly commands: string[];
  readonly queries: string[];
}

/** The catalogue of `handlers` (pattern → handler, as a NestJS server keeps them). */
export function patternCatalogue(
  handlers: Iterable<readonly [string, MessageHandler]>,
): PatternCatalogue {
  const commands: string[] = [];
  const queries: string[] = [];
  for (const [pattern, handler] of handlers) {
    const kind = (handler.extras as Record<string, unknown> | undefined)?.[ONCE_PATTERN_KIND];
    if (kind === 'command') commands.push(pattern);
    else if (kind === 'query') queries.push(pattern);
  }
  return { commands: commands.sort(), queries: queries.sort() };
}

/**
 * What a COMMAND naming a @Query is told. Not UNKNOWN_PATTERN: the pattern
 * exists, it was sent the wrong way; the message says which way is right.
 */
export function queryPatternMessage(pattern: string): string {
  return `"${pattern}" is a @Query; send it as a QUERY (OnceClientProxy discovers queries from the node)`;
}
