import { createParamDecorator, Req, Res } from '@nestjs/common';
import { standInForApply } from '../decorators/apply-stub';
import { ONCE_HTTP_METADATA } from '../once.constants';
import { type HttpParamSlot, readHttpParamLayout } from './http-param-layout';
import { admitHttpRequest } from './http-admission';

type AnyMethod = (...args: unknown[]) => unknown;

/** Options of {@link Idempotent}. */
export interface IdempotentOptions {
  /**
   * Whether a request must carry an `Idempotency-Key`. Default `true`: a
   * request without one is answered 400 `IDEMPOTENCY_KEY_MISSING` and
   * nothing runs. `false`: a request without a key is applied once, as
   * any, and a retry of it applies again (its response is answered with
   * `Idempotent-Replayed: false` and never replayed).
   */
  readonly required?: boolean;
  /** As `@Command`'s: the `@ReplicatedState` whose version `ctx.version` gives. Default: the module's one state. */
  readonly state?: string;
  /**
   * The status of a `CommandError` refusal from the apply step: its body is
   * `{"code","message"}`, recorded and replayed like a success. Default 422.
   */
  readonly refusalStatus?: number;
  /** As `@Command`'s: the fields of the journaled data the journal feed must never show. Default: undeclared (withheld). */
  readonly sensitive?: readonly string[];
  /**
   * What a request gets while another with the same key and body is being
   * applied: `conflict` (default) answers 409 `IDEMPOTENCY_KEY_IN_FLIGHT`
   * with `Retry-After: 1`, as the IETF draft says; `wait` holds it until
   * the first is applied and answers the first's response (replayed).
   */
  readonly inFlight?: 'conflict' | 'wait';
}

/** What `@Idempotent` records on the method that NestJS routes to. */
export interface IdempotentMetadata {
  readonly layout: readonly HttpParamSlot[];
  readonly options: IdempotentOptions;
}

/** Never called at admission: the apply step, not the route, receives the context. */
function applyContextParameter(): undefined {
  return undefined;
}

/** Whether a parameter's NestJS factory is `@ApplyCtx()`'s. */
export function isApplyContextFactory(factory: unknown): boolean {
  return factory === applyContextParameter;
}

/**
 * The `ApplyContext` of an `@Idempotent` route's apply step: the entry's
 * `op`, its journal `timestamp`, `userId` (the principal's), `version`.
 * What `@Ctx()` is to a `@Command`.
 */
export const ApplyCtx: () => ParameterDecorator = createParamDecorator(applyContextParameter);

/**
 * Makes an HTTP route exactly once: `@Post`, `@Put`, `@Patch` or `@Delete`
 * on a NestJS controller (Express or Fastify), the request carrying an
 * `Idempotency-Key` header. The request, the state change and the response
 * are one journal entry: applied once, replayed after a restart, the same
 * on every node. A retry with the same key gets the first response's
 * status and body bytes again, with `Idempotent-Replayed: true`.
 *
 * The method is the **apply** step, as a `@Command`'s: synchronous and
 * deterministic, reading only its module's state, its arguments and
 * `@ApplyCtx()`. Its arguments are what the pipes made of `@Body()`,
 * `@Param()`, `@Query()`, `@Headers()` and custom parameter decorators,
 * journaled as JSON; `@Req()` and `@Res()` are `undefined` there. What it
 * returns is the body (`JSON.stringify`), with the route's status
 * (`@HttpCode`, or 201 for a POST and 200 otherwise); a `CommandError` it
 * throws is answered `refusalStatus` with `{"code","message"}`; any other
 * throw is answered 500 `HANDLER_FAILED`. All three are recorded and replayed.
 *
 * Guards, interceptors and pipes run at **admission**, live, before
 * anything is journaled: a guard or pipe that refuses answers as NestJS
 * does and journals nothing, so a retry runs them again.
 *
 * The route is registered as the command `http:<METHOD> <path>` (the
 * controller's path and the route's, without a global prefix): it takes
 * part in manifests, versions and replay like any `@Command`.
 */
export function Idempotent(options: IdempotentOptions = {}): MethodDecorator {
  return (target, key, descriptor) => {
    const apply = descriptor.value as unknown as AnyMethod;
    if (typeof apply !== 'function') {
      throw new TypeError(`@Idempotent() must decorate a method (${String(key)})`);
    }
    const layout = readHttpParamLayout(target.constructor, key, isApplyContextFactory);
    const requestIndex = layout.length;
    const responseIndex = layout.length + 1;
    // The stub answers itself: declaring @Res() tells NestJS to send nothing.
    Req()(target, key, requestIndex);
    Res()(target, key, responseIndex);
    const metadata: IdempotentMetadata = {
      layout,
      options: { ...options, sensitive: options.sensitive ? [...options.sensitive] : undefined },
    };
    const admissionStub = async function admission(this: object, ...args: unknown[]) {
      await admitHttpRequest(
        this,
        admissionStub,
        metadata,
        args,
        args[requestIndex],
        args[responseIndex],
      );
    };
    // Enhancers and route decorators declared below @Idempotent were recorded on the original function.
    standInForApply(apply, admissionStub, descriptor);
    Reflect.defineMetadata(ONCE_HTTP_METADATA, metadata, admissionStub);
    return descriptor;
  };
}
