import { checkSettingValue, setting, settingDefaults, type SettingName } from '@once/settings';

/** TLS for the gateway: PEM key and certificate (and optionally a CA bundle to require client certificates). */
export interface GatewayTlsOptions {
  readonly key: string | Buffer;
  readonly cert: string | Buffer;
  /** When set, clients must present a certificate signed by it. */
  readonly ca?: string | Buffer;
}

/**
 * Options of the once TCP gateway. Every limit is enforced. Names, ranges and
 * defaults are those of the settings table (`@once/settings`, shown in the
 * README); an option left out takes its default, see {@link GATEWAY_DEFAULTS}.
 */
export interface GatewayOptions extends DeprecatedGatewayOptionNames {
  /** Interface to listen on. */
  readonly host?: string;
  /** TCP port; 0 picks a free one (see `OnceServer.address`). */
  readonly port?: number;
  /** Largest frame (header + body) accepted, bytes; larger is BAD_FRAME. */
  readonly frameBytesMax?: number;
  /** Open connections at once; further ones are closed on accept. */
  readonly connectionsMax?: number;
  /**
   * Journal entries admitted but not yet durable, across all sessions,
   * counting those whose admission step still runs; at the limit the gateway
   * stops reading (TCP backpressure) instead of answering busy.
   */
  readonly pendingEntriesMax?: number;
  /**
   * Reply bytes a peer left unread from earlier event-loop turns; past it the
   * connection is closed (a slow reader must not hold the node's memory). The
   * replies of the current turn do not count, so one large reply or a group
   * commit's worth never closes a peer that reads.
   */
  readonly writeBufferBytesMax?: number;
  /** A frame begun but not finished within this long: BAD_FRAME, and the connection closes. */
  readonly partialFrameTimeoutMs?: number;
  /** A connection that holds no session and sends nothing for this long is closed. */
  readonly idleUnboundTimeoutMs?: number;
  /** Failed REGISTERs one connection may make before it is closed. */
  readonly registerFailuresPerConnectionMax?: number;
  /**
   * Failed REGISTERs one address may make per minute; past it, its REGISTERs
   * are answered UNAUTHENTICATED without checking credentials until the
   * minute passes.
   */
  readonly registerFailuresPerAddressPerMinuteMax?: number;
  /** Serve TLS instead of plain TCP. */
  readonly tls?: GatewayTlsOptions;
}

/**
 * The names these options had before they were aligned with the settings
 * table. Still accepted; each resolves onto its new name, and when both are
 * given the new name wins.
 */
export interface DeprecatedGatewayOptionNames {
  /** @deprecated Use `frameBytesMax`. */
  readonly maxFrameBytes?: number;
  /** @deprecated Use `connectionsMax`. */
  readonly maxConnections?: number;
  /** @deprecated Use `pendingEntriesMax`. */
  readonly maxPendingEntries?: number;
  /** @deprecated Use `writeBufferBytesMax`. */
  readonly maxWriteBufferBytes?: number;
  /** @deprecated Use `registerFailuresPerConnectionMax`. */
  readonly maxFailedRegistersPerConnection?: number;
  /** @deprecated Use `registerFailuresPerAddressPerMinuteMax`. */
  readonly maxFailedRegistersPerAddressPerMinute?: number;
}

/** Old option name → new option name. */
const DEPRECATED_NAMES = {
  maxFrameBytes: 'frameBytesMax',
  maxConnections: 'connectionsMax',
  maxPendingEntries: 'pendingEntriesMax',
  maxWriteBufferBytes: 'writeBufferBytesMax',
  maxFailedRegistersPerConnection: 'registerFailuresPerConnectionMax',
  maxFailedRegistersPerAddressPerMinute: 'registerFailuresPerAddressPerMinuteMax',
} as const satisfies Record<keyof DeprecatedGatewayOptionNames, keyof GatewayOptions>;

/** The numeric limits, all from the settings table. */
const LIMIT_NAMES = [
  'port',
  'frameBytesMax',
  'connectionsMax',
  'pendingEntriesMax',
  'writeBufferBytesMax',
  'partialFrameTimeoutMs',
  'idleUnboundTimeoutMs',
  'registerFailuresPerConnectionMax',
  'registerFailuresPerAddressPerMinuteMax',
] as const satisfies readonly SettingName[];

/** The options in force: defaults applied, limits checked, new names only. */
export interface ResolvedGatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly frameBytesMax: number;
  readonly connectionsMax: number;
  readonly pendingEntriesMax: number;
  readonly writeBufferBytesMax: number;
  readonly partialFrameTimeoutMs: number;
  readonly idleUnboundTimeoutMs: number;
  readonly registerFailuresPerConnectionMax: number;
  readonly registerFailuresPerAddressPerMinuteMax: number;
  readonly tls: GatewayTlsOptions | undefined;
}

export const GATEWAY_DEFAULTS: ResolvedGatewayOptions = Object.freeze({
  ...settingDefaults(['host', ...LIMIT_NAMES]),
  tls: undefined,
});

export class InvalidGatewayOptionsError extends Error {
  readonly code = 'INVALID_GATEWAY_OPTIONS';
}

/**
 * A NestJS transport option the once gateway refuses rather than ignores:
 * `serializer` and `deserializer`. Once's wire format is fixed (JSON bodies in
 * checksummed protocol frames, journaled and replayed byte for byte), so a
 * codec of the application's would change what is journaled and what every
 * other client reads.
 */
export class UnsupportedGatewayOptionError extends TypeError {
  readonly code = 'OPTION_UNSUPPORTED';

  constructor(readonly option: string) {
    super(
      `OnceServer takes no ${option}: once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data in a pipe, an interceptor or the handler instead`,
    );
  }
}

/** NestJS transport options that would change the wire format. */
const UNSUPPORTED_OPTIONS = ['serializer', 'deserializer'] as const;

export function resolveGatewayOptions(options: GatewayOptions = {}): ResolvedGatewayOptions {
  const given: Record<string, unknown> = stripUndefined(options);
  for (const option of UNSUPPORTED_OPTIONS) {
    if (given[option] !== undefined) throw new UnsupportedGatewayOptionError(option);
  }
  for (const [old, current] of Object.entries(DEPRECATED_NAMES)) {
    if (given[current] === undefined && given[old] !== undefined) given[current] = given[old];
    delete given[old];
  }
  const resolved = { ...GATEWAY_DEFAULTS, ...given };
  for (const name of LIMIT_NAMES) {
    try {
      checkSettingValue(setting(name), resolved[name]);
    } catch (error) {
      throw new InvalidGatewayOptionsError((error as Error).message);
    }
  }
  if (resolved.tls && (!resolved.tls.key || !resolved.tls.cert)) {
    throw new InvalidGatewayOptionsError('tls needs both a key and a cert');
  }
  return Object.freeze(resolved);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
