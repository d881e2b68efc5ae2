import { MessagePattern } from '@nestjs/microservices';
import { AdmissionTicket, RAW_PAYLOAD } from '../admission-ticket';
import {
  ONCE_APPLY_METADATA,
  ONCE_COMMAND_METADATA,
  ONCE_PATTERN_KIND,
  ONCE_TRANSPORT,
} from '../once.constants';
import { readParamLayout } from './param-layout';

type AnyMethod = (...args: unknown[]) => unknown;

/**
 * Marks a method as a replicated command: exactly once per request number,
 * journaled before it runs, replayed at boot.
 *
 * The method is the **apply** step: called with `(data, ctx: ApplyContext)`
 * (or as its `@Payload()`/`@Ctx()` parameters say) when the entry commits, live
 * and on every replay. It must be synchronous and deterministic: read only its
 * module's state, the data and `ctx`; no clock, randomness or I/O. Throw a
 * `CommandError` to refuse (the refusal is committed and cached too).
 *
 * Guards, interceptors, pipes and exception filters on the method or its class
 * run at **admission**, live, when a new request number arrives: a guard that
 * says no, or a pipe that throws, commits a refusal instead of the command.
 * A pipe's output is what gets journaled.
 */
export function Command(pattern: string): MethodDecorator {
  return (target, key, descriptor) => {
    const apply = descriptor.value as unknown as AnyMethod;
    if (typeof apply !== 'function')
      throw new TypeError(`@Command('${pattern}') must decorate a method`);
    const layout = readParamLayout(target.constructor, key);
    const payloadIndex = layout?.findIndex(
      (slot) => slot.kind === 'payload' && slot.key === undefined,
    );
    const admissionStub = function admission(...args: unknown[]): AdmissionTicket {
      const payload =
        layout === undefined
          ? args[0]
          : payloadIndex !== undefined && payloadIndex >= 0
            ? args[payloadIndex]
            : RAW_PAYLOAD;
      return new AdmissionTicket(pattern, payload);
    };
    // Enhancers declared below @Command were recorded on the original function.
    for (const metadataKey of Reflect.getMetadataKeys(apply)) {
      Reflect.defineMetadata(metadataKey, Reflect.getMetadata(metadataKey, apply), admissionStub);
    }
    Object.defineProperty(admissionStub, 'name', { value: apply.name });
    Reflect.defineMetadata(ONCE_COMMAND_METADATA, { pattern }, admissionStub);
    Reflect.defineMetadata(ONCE_APPLY_METADATA, apply, admissionStub);
    (descriptor as PropertyDescriptor).value = admissionStub;
    MessagePattern(pattern, ONCE_TRANSPORT, { [ONCE_PATTERN_KIND]: 'command' })(
      target,
      key,
      descriptor as TypedPropertyDescriptor<unknown>,
    );
    return descriptor;
  };
}
