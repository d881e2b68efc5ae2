import { idempotentRouteOf, methodNamesOf } from './handler-scan';
import { type IdempotentMetadata } from './http/idempotent.decorator';
import { ONCE_COMMAND_METADATA, ONCE_HTTP_METADATA } from './once.constants';

/**
 * What each command lets the journal feed show of its body: pattern → the
 * fields it declared sensitive (`@Command(pattern, { sensitive: [...] })`).
 * A pattern absent from the map declared nothing: its body is withheld.
 * The module that owns the data decides, next to the handler; no list of
 * field names kept elsewhere guesses for it.
 */
export type CommandDisclosure = ReadonlyMap<string, readonly string[]>;

/** The declarations of the `@Command` methods (and the `@Idempotent` routes) of `instances`. */
export function commandDisclosureOf(instances: Iterable<object>): Map<string, readonly string[]> {
  const found = new Map<string, readonly string[]>();
  for (const instance of instances) {
    for (const methodKey of methodNamesOf(instance)) {
      const method = (instance as Record<string, unknown>)[methodKey];
      if (typeof method !== 'function') continue;
      const command = Reflect.getMetadata(ONCE_COMMAND_METADATA, method) as
        { pattern: string; sensitive?: readonly string[] } | undefined;
      if (command?.sensitive !== undefined) found.set(command.pattern, command.sensitive);
      const http = Reflect.getMetadata(ONCE_HTTP_METADATA, method) as
        IdempotentMetadata | undefined;
      const sensitive = http?.options.sensitive;
      if (sensitive !== undefined) {
        found.set(idempotentRouteOf(instance, method, methodKey).pattern, sensitive);
      }
    }
  }
  return found;
}
