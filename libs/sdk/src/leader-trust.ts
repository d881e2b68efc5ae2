/**
 * Which leader hints the client follows to an address it was not given.
 *
 * A leader hint (the `leader` of a follower's NOT_READY, or of a PING reply)
 * comes from whatever answered on the node's port, and in a cluster it is read
 * from NATS, where anyone who can write the lease key can put any address. A
 * client that followed every hint would send its REGISTER (username and
 * password) and its commands wherever that says. So a hint is followed only to
 * an address the client may trust:
 * - `'configured'`: one of the configured nodes (`nodes`, or `host`/`port`), nothing else;
 * - `'tls'`: a configured node, or any address when the hint came over a TLS
 *   connection whose certificate the client verified (the next connection is
 *   TLS with the same options, so it is verified too); the default;
 * - `'any'`: any address, even over plain TCP (a test bench, a trusted network).
 *   Not safe where the NATS servers or the network can be written by others.
 */
export type LeaderHintTrust = 'configured' | 'tls' | 'any';

export const LEADER_HINT_TRUSTS: readonly LeaderHintTrust[] = ['configured', 'tls', 'any'];

/** What the trust decision knows of a hinted address and of the connection it came over. */
export interface HintContext {
  /**
   * The address is known: one of the configured nodes, or learnt earlier
   * under this same policy (so it was trusted then).
   */
  readonly known: boolean;
  /** The connection is TLS, and its certificate was verified (and verification is required). */
  readonly verified: boolean;
  /** The connection is TLS at all (for the reason given when it was not verified). */
  readonly tls: boolean;
}

/**
 * Why the client does not follow a hint under `policy`, or `undefined` when
 * it does. The reason is a phrase that completes "not followed: …".
 */
export function distrustOf(policy: LeaderHintTrust, hint: HintContext): string | undefined {
  if (hint.known || policy === 'any') return undefined;
  if (policy === 'configured') {
    return "it is not one of the client's configured nodes (trustLeaderHints: 'configured')";
  }
  if (hint.verified) return undefined;
  return hint.tls
    ? "it is not one of the client's configured nodes, and the TLS certificate of the node that named it was not verified (tls.rejectUnauthorized is false)"
    : "it is not one of the client's configured nodes, and the connection is plain TCP, not verified TLS";
}
