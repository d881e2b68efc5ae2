import { type ExecutionContext } from '@nestjs/common';
import { ONCE_COMMAND_METADATA, ONCE_QUERY_METADATA } from '../../once.constants';
import { OnceRpcContext } from '../once-rpc-context';

/**
 * The once request a session guard judges, or why there is none:
 * - `not-once`: another transport's handler, or an rpc handler that is no
 *   @Command or @Query (an HTTP route of a hybrid app, say): not the session
 *   guards' business, they let it through;
 * - `foreign`: a @Command or @Query reached without a once request (another
 *   RPC transport, a hand-made call): the guards fail closed.
 */
export function onceRequestOf(context: ExecutionContext): OnceRpcContext | 'not-once' | 'foreign' {
  if (context.getType() !== 'rpc') return 'not-once';
  if (!isOnceHandler(context.getHandler())) return 'not-once';
  const rpc = context.switchToRpc().getContext<unknown>();
  return rpc instanceof OnceRpcContext ? rpc : 'foreign';
}

/** Handlers already looked at: both guards ask for every request, the answer never changes. */
const onceHandlers = new WeakMap<object, boolean>();

function isOnceHandler(handler: object): boolean {
  let known = onceHandlers.get(handler);
  if (known === undefined) {
    known =
      Reflect.hasMetadata(ONCE_COMMAND_METADATA, handler) ||
      Reflect.hasMetadata(ONCE_QUERY_METADATA, handler);
    onceHandlers.set(handler, known);
  }
  return known;
}
