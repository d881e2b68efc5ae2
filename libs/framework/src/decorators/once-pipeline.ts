import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GUARDS_METADATA } from '../nest/nest-internals';
import { Payload } from '@nestjs/microservices';
import { EpochFenceGuard } from '../session/guards/epoch-fence.guard';
import { ResumeGuard } from '../session/guards/resume.guard';
import { OnceRpcContext } from '../session/once-rpc-context';
import { type ParamSlot } from './param-layout';

const SESSION_GUARDS: readonly unknown[] = [ResumeGuard, EpochFenceGuard];

/**
 * Puts the session guards first among the guards of `controller` (class
 * level), so NestJS runs them on every @Command and @Query of it, after the
 * application's global guards and before the controller's and the method's
 * own. Class decorators are applied after method decorators, so a
 * `@UseGuards(...)` on the class lands behind them.
 *
 * Both guards let handlers that are not once handlers through (an HTTP route
 * in the same controller of a hybrid app).
 */
export function attachSessionGuards(controller: object): void {
  const current = (Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as unknown[];
  if (SESSION_GUARDS.every((guard, index) => current[index] === guard)) return;
  const others = current.filter((guard) => !SESSION_GUARDS.includes(guard));
  Reflect.defineMetadata(GUARDS_METADATA, [...SESSION_GUARDS, ...others], controller);
}

/**
 * A parameter NestJS resolves after every guard and interceptor let the
 * request through and before any pipe runs: resolving it marks the once
 * request (`guardsPassed`), so a failure is known to be a guard's refusal or
 * not without reading its message. Its value is the request's
 * `OnceRpcContext`, where a @Command's stub hands over its admission.
 */
function onceStage(_data: unknown, context: ExecutionContext): unknown {
  const rpc = context.switchToRpc().getContext<unknown>();
  if (rpc instanceof OnceRpcContext) rpc.guardsPassed = true;
  return rpc;
}
const OnceStage = createParamDecorator(onceStage);

/** Whether a parameter's NestJS factory is the stage parameter's (for `BareAdmission`). */
export function isOnceStageFactory(factory: unknown): boolean {
  return factory === onceStage;
}

/**
 * Appends the stage parameter to a once handler's parameters and returns its
 * index. A method without parameter decorators is called with the payload
 * alone; that slot is declared explicitly, since declaring any parameter
 * replaces NestJS's default.
 */
export function appendStageParam(
  prototype: object,
  key: string | symbol,
  layout: ParamSlot[] | undefined,
): number {
  if (!layout) Payload()(prototype, key, 0);
  const index = layout ? layout.length : 1;
  OnceStage()(prototype, key, index);
  return index;
}
