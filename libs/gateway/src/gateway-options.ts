import { DEFAULT_MAX_FRAME_BYTES } from '@once/protocol';

/** TLS for the gateway: PEM key and certificate (and optionally a CA bundle to require client certificates). */
export interface GatewayTlsOptions {
  readonly key: string | Buffer;
  readonly cert: string | Buffer;
  /** When set, clients must present a certificate signed by it. */
  readonly ca?: string | Buffer;
}

/** Options of the once TCP gateway. Every limit is enforced; defaults in brackets. */
export interface GatewayOptions {
  /** Interface to listen on [127.0.0.1]. */
  readonly host?: string;
  /** TCP port; 0 picks a free one (see `OnceServer.address`) [7700]. */
  readonly port?: number;
  /** Largest frame (header + body) accepted, bytes; larger is BAD_FRAME [1 MiB]. */
  readonly maxFrameBytes?: number;
  /** Open connections at once; further ones are closed on accept [10000]. */
  readonly maxConnections?: number;
  /**
   * Journal entries admitted but not yet durable, across all sessions,
   * counting those whose admission step still runs; at the limit the gateway
   * stops reading (TCP backpressure) instead of answering busy [65536].
   */
  readonly maxPendingEntries?: number;
  /**
   * Reply bytes a peer left unread from earlier event-loop turns; past it the
   * connection is closed (a slow reader must not hold the node's memory). The
   * replies of the current turn do not count, so one large reply or a group
   * commit's worth never closes a peer that reads [64 MiB].
   */
  readonly maxWriteBufferBytes?: number;
  /** A frame begun but not finished within this long: BAD_FRAME, and the connection closes [10000 ms]. */
  readonly partialFrameTimeoutMs?: number;
  /** A connection that holds no session and sends nothing for this long is closed [60000 ms]. */
  readonly idleUnboundTimeoutMs?: number;
  /** Failed REGISTERs one connection may make before it is closed [5]. */
  readonly maxFailedRegistersPerConnection?: number;
  /**
   * Failed REGISTERs one address may make per minute; past it, its REGISTERs
   * are answered UNAUTHENTICATED without checking credentials until the
   * minute passes [30].
   */
  readonly maxFailedRegistersPerAddressPerMinute?: number;
  /** Serve TLS instead of plain TCP [off]. */
  readonly tls?: GatewayTlsOptions;
}

export interface ResolvedGatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly maxFrameBytes: number;
  readonly maxConnections: number;
  readonly maxPendingEntries: number;
  readonly maxWriteBufferBytes: number;
  readonly partialFrameTimeoutMs: number;
  readonly idleUnboundTimeoutMs: number;
  readonly maxFailedRegistersPerConnection: number;
  readonly maxFailedRegistersPerAddressPerMinute: number;
  readonly tls: GatewayTlsOptions | undefined;
}

export const GATEWAY_DEFAULTS: ResolvedGatewayOptions = Object.freeze({
  host: '127.0.0.1',
  port: 7700,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  maxConnections: 10_000,
  maxPendingEntries: 65_536,
  maxWriteBufferBytes: 64 * 1024 * 1024,
  partialFrameTimeoutMs: 10_000,
  idleUnboundTimeoutMs: 60_000,
  maxFailedRegistersPerConnection: 5,
  maxFailedRegistersPerAddressPerMinute: 30,
  tls: undefined,
});

export class InvalidGatewayOptionsError extends Error {
  readonly code = 'INVALID_GATEWAY_OPTIONS';
}

export function resolveGatewayOptions(options: GatewayOptions = {}): ResolvedGatewayOptions {
  const resolved: ResolvedGatewayOptions = { ...GATEWAY_DEFAULTS, ...stripUndefined(options) };
  const integer = (name: keyof ResolvedGatewayOptions, min: number, max: number): void => {
    const value = resolved[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidGatewayOptionsError(
        `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`,
      );
    }
  };
  integer('port', 0, 65_535);
  integer('maxFrameBytes', 128, 2 ** 32 - 1);
  integer('maxConnections', 1, 1_000_000);
  integer('maxPendingEntries', 1, 10_000_000);
  integer('maxWriteBufferBytes', 1024, 2 ** 40);
  integer('partialFrameTimeoutMs', 1, 24 * 3_600_000);
  integer('idleUnboundTimeoutMs', 1, 24 * 3_600_000);
  integer('maxFailedRegistersPerConnection', 1, 1_000_000);
  integer('maxFailedRegistersPerAddressPerMinute', 1, 1_000_000);
  if (resolved.tls && (!resolved.tls.key || !resolved.tls.cert)) {
    throw new InvalidGatewayOptionsError('tls needs both a key and a cert');
  }
  return resolved;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
