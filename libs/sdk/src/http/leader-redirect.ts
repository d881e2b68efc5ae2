import { type LeaderUrlResolver } from './idempotent-request-options';

/** The response header in which a node that takes no writes names the leader's advertised address. */
export const ONCE_LEADER_HEADER = 'once-leader';

/**
 * Where the next attempt goes when `current` answered with a `Once-Leader`
 * naming `address`: the resolved base URL with the path and query of
 * `original`, or `undefined` when the address is absent, not resolved by the
 * caller, or resolves to `current` itself (no redirect, wait instead).
 *
 * The resolved base URL gives the scheme, host and port; its own path is not
 * kept (the route's path is absolute).
 */
export function leaderRedirect(
  address: string | null,
  resolver: LeaderUrlResolver | undefined,
  original: URL,
  current: URL,
): URL | undefined {
  if (address === null || resolver === undefined) return undefined;
  const name = address.trim();
  if (name === '') return undefined;
  const base =
    typeof resolver === 'function'
      ? resolver(name)
      : Object.prototype.hasOwnProperty.call(resolver, name)
        ? resolver[name]
        : undefined;
  if (base === undefined) return undefined;
  const target = new URL(original.pathname + original.search, base);
  return target.href === current.href ? undefined : target;
}
