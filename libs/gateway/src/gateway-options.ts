import { type TlsOptions } from 'node:tls';
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
   * commit's worth never closes a peer that reads. Replies that all came in
   * one turn (a burst of requests sent in one write) are checked by the
   * slow-peer sweep: past the limit at two of its passes in a row (it runs at
   * least once a second), the connection is closed.
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
  /**
   * Connections per peer address at once; a further one from that address is
   * closed on accept (the others keep working). Bounds what one host can hold
   * of `connectionsMax`.
   */
  readonly connectionsPerAddressMax?: number;
  /**
   * A connection that holds no session this long (since it opened, or since
   * it lost its session) is closed, whatever it sends: PINGs do not keep a
   * connection that never registers.
   */
  readonly unboundTimeoutMs?: number;
  /**
   * Failed REGISTERs per username per minute before its REGISTERs are checked
   * one at a time, each failure answered after a growing delay (bounds a
   * guesser spread over many addresses).
   */
  readonly registerFailuresPerUserPerMinuteMax?: number;
  /** Serve TLS instead of plain TCP. */
  readonly tls?: GatewayTlsOptions;
  /**
   * NestJS's TCP transport option, honoured: serve TLS with these
   * `tls.createServer` options (`key`, `cert`, `ca`, `requestCert`,
   * `rejectUnauthorized`, `pfx`, `passphrase`, `minVersion`, ...), exactly as
   * NestJS's TCP server would. Give this or `tls`, not both.
   */
  readonly tlsOptions?: TlsOptions;
  /** Not served by once (NestJS's TCP server option): refused. See {@link NEST_TCP_OPTIONS}. */
  readonly retryAttempts?: never;
  /** Not served by once (NestJS's TCP server option): refused. */
  readonly retryDelay?: never;
  /** Not served by once (NestJS's TCP server option): refused; use `frameBytesMax`. */
  readonly maxBufferSize?: never;
  /** Not served by once (NestJS's TCP server option): refused; use `partialFrameTimeoutMs`. */
  readonly incompleteMessageTimeout?: never;
  /** Not served by once (NestJS's TCP server option): refused; use `writeBufferBytesMax`. */
  readonly maxSendBufferSize?: never;
  /** Not served by once (NestJS's TCP server option): refused. */
  readonly socketClass?: never;
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
  'connectionsPerAddressMax',
  'unboundTimeoutMs',
  'registerFailuresPerUserPerMinuteMax',
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
  readonly connectionsPerAddressMax: number;
  readonly unboundTimeoutMs: number;
  readonly registerFailuresPerUserPerMinuteMax: number;
  /** The `tls` option as given (undefined when TLS came from `tlsOptions`, or is off). */
  readonly tls: GatewayTlsOptions | undefined;
  /** What the TLS listener is created with (from `tls` or `tlsOptions`); undefined: plain TCP. */
  readonly tlsOptions: TlsOptions | undefined;
}

export const GATEWAY_DEFAULTS: ResolvedGatewayOptions = Object.freeze({
  ...settingDefaults(['host', ...LIMIT_NAMES]),
  tls: undefined,
  tlsOptions: undefined,
});

export class InvalidGatewayOptionsError extends Error {
  readonly code = 'INVALID_GATEWAY_OPTIONS';
}

/**
 * An option `OnceServer` does not know. Refused rather than ignored: a
 * misspelt limit, or an option of another transport, would otherwise leave
 * the node running without what its author believes it configured.
 */
export class UnknownGatewayOptionError extends TypeError {
  readonly code = 'OPTION_UNKNOWN';

  constructor(readonly option: string) {
    super(
      `OnceServer has no option "${option}"; its options are ${[...KNOWN_OPTIONS].sort().join(', ')}`,
    );
  }
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

  constructor(
    readonly option: string,
    reason = NEST_TCP_OPTIONS[option as keyof typeof NEST_TCP_OPTIONS] ?? WIRE_FORMAT_FIXED,
  ) {
    super(`OnceServer takes no ${option}: ${reason}`);
  }
}

const WIRE_FORMAT_FIXED =
  "once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data in a pipe, an interceptor or the handler instead";

/**
 * NestJS TCP server options (`TcpOptions['options']`, NestJS 11) that once
 * does not serve, each with what to use instead. None is mapped onto a once
 * limit: their units and meaning differ (`maxBufferSize` counts characters of
 * a JSON stream, `incompleteMessageTimeout` restarts at every read, 0 turns
 * them off), so a silent mapping would enforce something else than what was
 * written. `tlsOptions` is served (see {@link GatewayOptions.tlsOptions}).
 */
export const NEST_TCP_OPTIONS = {
  serializer: WIRE_FORMAT_FIXED,
  deserializer: WIRE_FORMAT_FIXED,
  retryAttempts:
    "it is a listen retry of NestJS's TCP server; once listens once and fails the start with the reason (restart the service instead)",
  retryDelay:
    "it is a listen retry of NestJS's TCP server; once listens once and fails the start with the reason (restart the service instead)",
  maxBufferSize:
    'once bounds each frame in bytes with frameBytesMax (ONCE_FRAME_BYTES_MAX), not a character buffer; set frameBytesMax',
  incompleteMessageTimeout:
    "once bounds the time to finish a frame with partialFrameTimeoutMs (ONCE_PARTIAL_FRAME_TIMEOUT_MS), from the frame's first byte; set partialFrameTimeoutMs",
  maxSendBufferSize:
    'once bounds the reply bytes a peer leaves unread with writeBufferBytesMax (ONCE_WRITE_BUFFER_BYTES_MAX); set writeBufferBytesMax',
  socketClass:
    "once's connections speak the once protocol and no other socket class; for TLS give tlsOptions or tls",
} as const;

/** Every option name `OnceServer` takes (new and deprecated names). */
const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'host',
  ...LIMIT_NAMES,
  'tls',
  'tlsOptions',
  ...Object.keys(DEPRECATED_NAMES),
]);

export function resolveGatewayOptions(options: GatewayOptions = {}): ResolvedGatewayOptions {
  const given: Record<string, unknown> = stripUndefined(options);
  for (const option of Object.keys(given)) {
    if (Object.hasOwn(NEST_TCP_OPTIONS, option)) throw new UnsupportedGatewayOptionError(option);
    if (!KNOWN_OPTIONS.has(option)) throw new UnknownGatewayOptionError(option);
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
  return Object.freeze({ ...resolved, tlsOptions: listenerTls(resolved.tls, given.tlsOptions) });
}

/**
 * The options the TLS listener is created with: `tls` (once's own) or
 * `tlsOptions` (NestJS's, passed to `tls.createServer` as NestJS's TCP server
 * does), never both, and never one a TLS server could not serve with.
 */
function listenerTls(
  tls: GatewayTlsOptions | undefined,
  tlsOptions: unknown,
): TlsOptions | undefined {
  if (tlsOptions !== undefined && tls !== undefined) {
    throw new InvalidGatewayOptionsError(
      'give tls or tlsOptions, not both: each turns TLS on, with its own options',
    );
  }
  if (tls) {
    return {
      key: tls.key,
      cert: tls.cert,
      ca: tls.ca,
      requestCert: tls.ca !== undefined,
      rejectUnauthorized: tls.ca !== undefined,
    };
  }
  if (tlsOptions === undefined) return undefined;
  if (typeof tlsOptions !== 'object' || tlsOptions === null) {
    throw new InvalidGatewayOptionsError(
      'tlsOptions must be an object of tls.createServer options',
    );
  }
  const given = tlsOptions as TlsOptions;
  const hasIdentity =
    (given.key !== undefined && given.cert !== undefined) ||
    given.pfx !== undefined ||
    given.SNICallback !== undefined;
  if (!hasIdentity) {
    throw new InvalidGatewayOptionsError(
      'tlsOptions needs the server identity: key and cert, or pfx (or an SNICallback)',
    );
  }
  return { ...given };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
