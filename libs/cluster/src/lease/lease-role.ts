import { type LeaseHolder, sameHolder } from './lease-value';

/**
 * What a node is in its cluster, as far as it can tell:
 * - `leader`: it holds the lease (renewed within the TTL) under `term`;
 * - `follower`: `holder` holds it, as the bucket said within the TTL;
 * - `none`: no holder is known (the key is free or unreadable, or this node
 *   has not reached NATS within the TTL).
 */
export type LeaseRole =
  | { readonly role: 'leader'; readonly term: number; readonly holder: LeaseHolder }
  | { readonly role: 'follower'; readonly holder: LeaseHolder }
  | { readonly role: 'none' };

export const NO_ROLE: LeaseRole = Object.freeze({ role: 'none' });

/** True when `a` and `b` say the same thing: a renewal changes nothing a listener cares about. */
export function sameRole(a: LeaseRole, b: LeaseRole): boolean {
  if (a.role === 'none' || b.role === 'none') return a.role === b.role;
  return a.role === b.role && sameHolder(a.holder, b.holder);
}
