import { UseFilters } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ADMISSION_SINK, AdmissionTicket, RAW_PAYLOAD, isAdmissionSink } from '../admission-ticket';
import { CommandErrorFilter } from '../command-error.filter';
import { type OncePattern, routeOf } from '../once-pattern';
import {
  ONCE_COMMAND_METADATA,
  ONCE_PATTERN_KIND,
  ONCE_PATTERN_ROUTE,
  ONCE_TRANSPORT,
} from '../once.constants';
import { standInForApply } from './apply-stub';
import { appendStageParam, attachSessionGuards } from './once-pipeline';
import { readParamLayout } from './param-layout';

type AnyMethod = (...args: unknown[]) => unknown;

/** Options of {@link Command}. */
export interface CommandOptions {
  /**
   * The `@ReplicatedState` name whose version `ctx.version` gives. Default:
   * the state of the command's NestJS module, when it has exactly one.
   */
  readonly state?: string;
  /**
   * The fields of this command's journaled data that must never be shown:
   * the journal feed (`GET /journal`) prints `"[redacted]"` in their place,
   * at any depth of the body. Declaring the list, even empty (`[]`: nothing
   * secret), is what lets the feed show the body at all: a command that
   * declares nothing has its body withheld, so a field no one thought about
   * (`apiKey`, `cardNumber`) is never printed by default. Name the fields
   * as the data that is journaled spells them (what an `@Admit` step
   * returns, when there is one). Default: undeclared (body withheld).
   */
  readonly sensitive?: readonly string[];
}

/**
 * Marks a method as a replicated command: exactly once per request number,
 * journaled before it runs, replayed at boot.
 *
 * The method is the **apply** step: called with `(data, ctx: ApplyContext)`
 * (or as its `@Payload()`/`@Ctx()` parameters say) when the entry commits, live
 * and on every replay. It must be synchronous and deterministic: read only its
 * module's state, the data and `ctx`; no clock, randomness or I/O. Throw a
 * `CommandError` to refuse (the refusal is committed and cached too); an
 * `RpcException` refuses too, its error object reaching the client as on
 * NestJS TCP. It replies once: a value, or an Observable that emits one value
 * synchronously and completes (more, or later, is refused REPLY_NOT_SINGLE).
 * An `async` method is refused at bootstrap: slow or random work belongs to
 * an `@Admit` step. Any other throw commits HANDLER_FAILED, whose message
 * names the op and nothing of the error (the details go to the server log).
 *
 * `pattern` is a name or an object (`{ cmd: 'sum' }`), routed as NestJS
 * routes it (the object's JSON with sorted keys).
 *
 * `ctx.version` is the version in force, at the entry's op, of the state
 * the command belongs to: the `@ReplicatedState` of its NestJS module when
 * the module has exactly one, or the one `options.state` names.
 *
 * The session guards (`ResumeGuard`, `EpochFenceGuard`) run first among the
 * controller's guards. Guards, interceptors, pipes and exception filters on
 * the method or its class run at **admission**, live, when a new request number arrives: a guard that
 * says no, or a pipe that throws, commits a refusal instead of the command.
 * A pipe's output is what gets journaled (a whole-payload `@Payload(pipe)`
 * replaces the data; a keyed `@Payload('key', pipe)` replaces that key).
 */
export function Command(pattern: OncePattern, options: CommandOptions = {}): MethodDecorator {
  const route = routeOf(pattern);
  return (target, key, descriptor) => {
    const apply = descriptor.value as unknown as AnyMethod;
    if (typeof apply !== 'function') {
      throw new TypeError(`@Command(${JSON.stringify(route)}) must decorate a method`);
    }
    const layout = readParamLayout(target.constructor, key);
    // Without parameter decorators NestJS calls (payload).
    const wholeIndex = layout
      ? layout.findIndex((slot) => slot.kind === 'payload' && slot.key === undefined)
      : 0;
    const keyedSlots: Array<{ key: string; index: number }> = [];
    layout?.forEach((slot, index) => {
      if (slot.kind === 'payload' && slot.key !== undefined)
        keyedSlots.push({ key: slot.key, index });
    });
    // The stage parameter carries the rpc context the stub hands the ticket to.
    const sinkIndex = appendStageParam(target, key, layout);
    const admissionStub = function admission(...args: unknown[]): AdmissionTicket {
      const payload = wholeIndex >= 0 ? args[wholeIndex] : RAW_PAYLOAD;
      const keyed =
        keyedSlots.length > 0
          ? Object.fromEntries(keyedSlots.map((slot) => [slot.key, args[slot.index]]))
          : undefined;
      const ticket = new AdmissionTicket(route, payload, keyed);
      const sink = args[sinkIndex];
      if (isAdmissionSink(sink)) sink[ADMISSION_SINK](ticket);
      return ticket;
    };
    // Enhancers declared below @Command were recorded on the original function.
    standInForApply(apply, admissionStub, descriptor);
    Reflect.defineMetadata(
      ONCE_COMMAND_METADATA,
      {
        pattern: route,
        layout,
        state: options.state,
        sensitive: options.sensitive ? [...options.sensitive] : undefined,
      },
      admissionStub,
    );
    const stubDescriptor = descriptor as TypedPropertyDescriptor<unknown>;
    MessagePattern(pattern, ONCE_TRANSPORT, {
      [ONCE_PATTERN_KIND]: 'command',
      [ONCE_PATTERN_ROUTE]: route,
    })(target, key, stubDescriptor);
    // Keeps a CommandError's code in microservices that do not inherit the app's global filters.
    UseFilters(CommandErrorFilter)(target, key, stubDescriptor);
    attachSessionGuards(target.constructor);
    return descriptor;
  };
}
