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
  const handler = context.getHandler();
  const isOnceHandler =
    Reflect.hasMetadata(ONCE_COMMAND_METADATA, handler) ||
    Reflect.hasMetadata(ONCE_QUERY_METADATA, handler);
  if (!isOnceHandler) return 'not-once';
  const rpc = context.switchToRpc().getContext<unknown>();
  return rpc instanceof OnceRpcContext ? rpc : 'foreign';
}
