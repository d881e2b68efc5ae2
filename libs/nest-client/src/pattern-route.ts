import { type PatternCatalogue } from '@once/sdk';

/** How a pattern is sent: its name on the wire, and QUERY or COMMAND. */
export interface PatternRoute {
  readonly name: string;
  readonly query: boolean;
}

/** A node's catalogue as sets, for lookups on every call. */
export interface KnownPatterns {
  readonly commands: ReadonlySet<string>;
  readonly queries: ReadonlySet<string>;
}

export function knownPatterns(catalogue: PatternCatalogue): KnownPatterns {
  return { commands: new Set(catalogue.commands), queries: new Set(catalogue.queries) };
}

/**
 * The query name of the older `{ query: 'x' }` convention (an object whose
 * only key is `query`, a string), if `pattern` is written that way.
 */
export function legacyQueryName(pattern: unknown): string | undefined {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern)) return undefined;
  const keys = Object.keys(pattern);
  const { query } = pattern as { query?: unknown };
  return keys.length === 1 && typeof query === 'string' ? query : undefined;
}

/**
 * Decides how a call is sent.
 *
 * - `normalised` is the pattern as NestJS's ClientProxy normalises it (a
 *   string as it is, an object as sorted-key JSON), so it names the same
 *   handler as on NestJS's own transports.
 * - It is a QUERY when the caller listed it in `queries`, or when the node's
 *   catalogue lists it as a @Query; otherwise a COMMAND (a pattern the node
 *   does not know is refused there, committed, as UNKNOWN_PATTERN).
 * - `{ query: 'x' }` (`legacy` = 'x') keeps its older meaning, the query `x`,
 *   unless the node has a handler registered under the object pattern itself:
 *   that exact match wins, as it would on NestJS's TCP transport.
 *
 * `known` is undefined when the node has no catalogue (an older node).
 */
export function routeOf(
  normalised: string,
  legacy: string | undefined,
  known: KnownPatterns | undefined,
  queries: ReadonlySet<string>,
): PatternRoute {
  const servedAsIs =
    known !== undefined && (known.queries.has(normalised) || known.commands.has(normalised));
  if (legacy !== undefined && !servedAsIs && !queries.has(normalised)) {
    return { name: legacy, query: true };
  }
  return {
    name: normalised,
    query: queries.has(normalised) || (known?.queries.has(normalised) ?? false),
  };
}
