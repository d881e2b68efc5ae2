import { type OnceRuntime } from './once-runtime';

/**
 * A transport strategy that serves the once protocol. The runtime finds such
 * strategies among the application's RPC targets and hands itself to them,
 * so `NestFactory.createMicroservice(AppModule, { strategy })` and
 * `app.connectMicroservice({ strategy })` both work without global state.
 */
export interface OnceRuntimeConsumer {
  attachOnceRuntime(runtime: OnceRuntime): void;
}

export function isOnceRuntimeConsumer(target: unknown): target is OnceRuntimeConsumer {
  return (
    typeof target === 'object' &&
    target !== null &&
    typeof (target as Partial<OnceRuntimeConsumer>).attachOnceRuntime === 'function'
  );
}
