import { type NodeAddress, parseNodeAddress } from './node-address';

/**
 * The cluster leader's address in a PING reply body, if it names one.
 *
 * PROTOCOL.md's PING body is `{"version","commit","ready"}`; a node of a
 * cluster adds `leader`, the `host:port` its leader advertises (null while
 * there is none). The field is additive, so everything else is read as "no
 * leader": a single node's body, a null, a malformed address, a body that is
 * not JSON. The client only ever adds what it learns here to its node list.
 */
export function leaderOf(body: Uint8Array): NodeAddress | undefined {
  return parseNodeAddress(jsonObjectOf(body)?.leader);
}

/** A reply body's JSON object, or undefined when it is not JSON or not an object. */
export function jsonObjectOf(body: Uint8Array): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null
    ? (parsed as Record<string, unknown>)
    : undefined;
}
