import { InvalidReplyError } from './errors/invalid-reply.error';

/**
 * The QUERY pattern a node answers with the patterns its handlers registered
 * (docs/PROTOCOL-NOTES.md, "Pattern catalogue"). Reserved: no handler of an
 * application answers it.
 */
export const PATTERN_CATALOGUE_QUERY = '$once.patterns';

/**
 * Which patterns a node serves, by kind: a `@Command` is sent as a COMMAND
 * (journaled, applied exactly once), a `@Query` as a QUERY (a read). Both
 * lists are sorted. Patterns are the exact strings the handlers registered
 * under (an object pattern in NestJS's normalised form, e.g. `{"cmd":"sum"}`).
 */
export interface PatternCatalogue {
  readonly commands: readonly string[];
  readonly queries: readonly string[];
}

/** Checks the result of a catalogue QUERY; a node that answers something else is broken. */
export function toPatternCatalogue(result: unknown): PatternCatalogue {
  const { commands, queries } = (result ?? {}) as Record<string, unknown>;
  if (!isStringList(commands) || !isStringList(queries)) {
    throw new InvalidReplyError(
      `${PATTERN_CATALOGUE_QUERY}: the node answered ${JSON.stringify(result)}, not {"commands":[…],"queries":[…]}`,
    );
  }
  return { commands, queries };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
