import { DEFAULT_MAX_FRAME_BYTES } from '@once/protocol';

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
   * Journal entries admitted but not yet durable, across all sessions; at the
   * limit the gateway stops reading (TCP backpressure) instead of answering
   * busy [65536].
   */
  readonly maxPendingEntries?: number;
  /**
   * Bytes queued for a peer that does not read its replies; past it the
   * connection is closed (a slow reader must not hold the node's memory) [64 MiB].
   */
  readonly maxWriteBufferBytes?: number;
}

export interface ResolvedGatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly maxFrameBytes: number;
  readonly maxConnections: number;
  readonly maxPendingEntries: number;
  readonly maxWriteBufferBytes: number;
}

export const GATEWAY_DEFAULTS: ResolvedGatewayOptions = Object.freeze({
  host: '127.0.0.1',
  port: 7700,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  maxConnections: 10_000,
  maxPendingEntries: 65_536,
  maxWriteBufferBytes: 64 * 1024 * 1024,
});

export class InvalidGatewayOptionsError extends Error {
  readonly code = 'INVALID_GATEWAY_OPTIONS';
}

export function resolveGatewayOptions(options: GatewayOptions = {}): ResolvedGatewayOptions {
  const resolved = { ...GATEWAY_DEFAULTS, ...stripUndefined(options) };
  const integer = (name: keyof ResolvedGatewayOptions, min: number, max: number): void => {
    const value = resolved[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidGatewayOptionsError(
        `${name} must be an integer from ${min} to ${max}, got ${String(value)}`,
      );
    }
  };
  integer('port', 0, 65_535);
  integer('maxFrameBytes', 128, 2 ** 32 - 1);
  integer('maxConnections', 1, 1_000_000);
  integer('maxPendingEntries', 1, 10_000_000);
  integer('maxWriteBufferBytes', 1024, 2 ** 40);
  return resolved;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
