import { type CommandHandler, type ModuleState } from '@once/engine';
import { type ParamSlot, argumentsFor } from './decorators/param-layout';
import {
  ONCE_ADMIT_METADATA,
  ONCE_APPLY_METADATA,
  ONCE_COMMAND_METADATA,
  ONCE_STATE_METADATA,
} from './once.constants';

type AnyMethod = (...args: unknown[]) => unknown;

/** Raised at startup when the decorated handlers do not form a valid set. */
export class HandlerDiscoveryError extends Error {
  readonly code = 'HANDLER_DISCOVERY';
}

/** The handlers and states found on a set of instances. */
export interface ScannedHandlers {
  readonly commands: CommandHandler[];
  readonly states: Array<[string, ModuleState]>;
}

/**
 * Collects @Command apply steps, their @Admit steps and @ReplicatedState
 * instances from already-built objects. NestJS discovery feeds it the
 * application's providers and controllers; plain code and tests can feed it
 * instances they built themselves.
 */
export function scanHandlers(instances: Iterable<object>): ScannedHandlers {
  const applies = new Map<string, { apply: CommandHandler['apply']; owner: string }>();
  const admits = new Map<string, { admit: NonNullable<CommandHandler['admit']>; owner: string }>();
  const states: Array<[string, ModuleState]> = [];
  const seen = new Set<object>();

  for (const instance of instances) {
    if (seen.has(instance)) continue;
    seen.add(instance);
    const stateName = Reflect.getMetadata(ONCE_STATE_METADATA, instance.constructor) as
      string | undefined;
    if (stateName !== undefined) states.push([stateName, instance as ModuleState]);

    for (const methodKey of methodNamesOf(instance)) {
      const method = (instance as Record<string, unknown>)[methodKey];
      if (typeof method !== 'function') continue;
      const owner = `${instance.constructor.name}.${methodKey}`;
      const command = Reflect.getMetadata(ONCE_COMMAND_METADATA, method) as
        { pattern: string; layout: ParamSlot[] | undefined } | undefined;
      if (command) {
        const previous = applies.get(command.pattern);
        if (previous) {
          throw new HandlerDiscoveryError(
            `@Command('${command.pattern}') is declared by both ${previous.owner} and ${owner}`,
          );
        }
        const original = Reflect.getMetadata(ONCE_APPLY_METADATA, method) as AnyMethod;
        // The parameters as the team declared them, without the admission-only stage parameter.
        const { layout } = command;
        applies.set(command.pattern, {
          apply: (data, ctx) => original.apply(instance, argumentsFor(layout, data, ctx)),
          owner,
        });
      }
      const admit = Reflect.getMetadata(ONCE_ADMIT_METADATA, method) as
        { pattern: string } | undefined;
      if (admit) {
        const previous = admits.get(admit.pattern);
        if (previous) {
          throw new HandlerDiscoveryError(
            `@Admit('${admit.pattern}') is declared by both ${previous.owner} and ${owner}`,
          );
        }
        admits.set(admit.pattern, {
          admit: (data, ctx) => (method as AnyMethod).call(instance, data, ctx),
          owner,
        });
      }
    }
  }
  for (const [pattern, { owner }] of admits) {
    if (!applies.has(pattern)) {
      throw new HandlerDiscoveryError(
        `@Admit('${pattern}') on ${owner} has no @Command('${pattern}')`,
      );
    }
  }
  const commands = [...applies].map(([pattern, { apply }]) => ({
    pattern,
    apply,
    admit: admits.get(pattern)?.admit,
  }));
  return { commands, states };
}

/** Own and inherited method names, up to (not including) Object.prototype. */
function methodNamesOf(instance: object): string[] {
  const names = new Set<string>();
  for (
    let proto = Object.getPrototypeOf(instance) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (descriptor && typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}
