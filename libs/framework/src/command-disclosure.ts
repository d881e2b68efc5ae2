import { methodNamesOf } from './handler-scan';
import { ONCE_COMMAND_METADATA } from './once.constants';

/**
 * What each command lets the journal feed show of its body: pattern → the
 * fields it declared sensitive (`@Command(pattern, { sensitive: [...] })`).
 * A pattern absent from the map declared nothing: its body is withheld.
 * The module that owns the data decides, next to the handler; no list of
 * field names kept elsewhere guesses for it.
 */
export type CommandDisclosure = ReadonlyMap<string, readonly string[]>;

/** The declarations of the `@Command` methods of `instances`. */
export function commandDisclosureOf(instances: Iterable<object>): Map<string, readonly string[]> {
  const found = new Map<string, readonly string[]>();
  for (const instance of instances) {
    for (const methodKey of methodNamesOf(instance)) {
      const method = (instance as Record<string, unknown>)[methodKey];
      if (typeof method !== 'function') continue;
      const command = Reflect.getMetadata(ONCE_COMMAND_METADATA, method) as
        { pattern: string; sensitive?: readonly string[] } | undefined;
      if (command?.sensitive !== undefined) found.set(command.pattern, command.sensitive);
    }
  }
  return found;
}
