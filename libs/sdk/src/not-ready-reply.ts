import { type NodeAddress, parseNodeAddress } from './node-address';
import { jsonObjectOf } from './ping-reply';

/**
 * The leader a NOT_READY reply names, if any: where a follower of a cluster
 * sends its clients.
 *
 * PROTOCOL.md's error body is `{"ok":false,"error":{"code","message"}}`; a
 * follower adds `leader` inside `error`, the `host:port` its leader
 * advertises, and leaves it out while it knows no leader. The key is
 * additive, so everything else is read as "no hint": a node that never sends
 * one, a malformed address, a body that is not JSON. Read like the `leader`
 * of a PING reply ({@link parseNodeAddress}).
 */
export function leaderHintOf(body: Uint8Array): NodeAddress | undefined {
  const error = jsonObjectOf(body)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  return parseNodeAddress((error as { leader?: unknown }).leader);
}
