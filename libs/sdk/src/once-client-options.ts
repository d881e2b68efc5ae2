import { type ConnectionOptions } from 'node:tls';
import { type ClientId, isClientId } from '@once/protocol';
import { DEFAULT_MAX_FRAME_BYTES, ZERO_CLIENT_ID } from '@once/protocol/internal';
import { type BackoffSettings } from './backoff';
import { type OnceClientLogger } from './client-logger';
import { InvalidOptionsError } from './errors/invalid-options.error';
import { OptionNameConflictError } from './errors/option-name-conflict.error';
import { LEADER_HINT_TRUSTS, type LeaderHintTrust } from './leader-trust';
import { formatNodeAddress, isPort, type NodeAddress, sameNodeAddress } from './node-address';
import { type OnceClientEvent } from './once-client-event';

/**
 * Reconnect backoff; see `Backoff` (backoff.ts) for the exact formula. Limits
 * are named qualifier last (`delayMsMax`, `attemptsMax`), as the node's
 * settings are; the old names are still accepted
 * ({@link DeprecatedReconnectOptionNames}).
 */
export interface ReconnectOptions extends DeprecatedReconnectOptionNames {
  /** Delay before the first reconnect attempt, ms. Default 50. */
  initialDelayMs?: number;
  /** Cap of every delay, jitter included, ms. Default 2000. */
  delayMsMax?: number;
  /** Growth per attempt (≥ 1). Default 2. */
  factor?: number;
  /** Relative spread in [0, 1]. Default 0.2. */
  jitter?: number;
  /**
   * Consecutive failed attempts before the client gives up (every pending
   * request then fails, in-doubt ones with OutcomeUnknownError). Default
   * Infinity. A successful bind resets the count.
   */
  attemptsMax?: number;
}

/**
 * The names the reconnect options had before they were named qualifier last.
 * Still accepted: each resolves onto its new name, with a warning (once per
 * logger) through `logger`; given together with the new name and a different
 * value, the options are refused (OptionNameConflictError).
 */
export interface DeprecatedReconnectOptionNames {
  /** @deprecated Use `delayMsMax`. */
  maxDelayMs?: number;
  /** @deprecated Use `attemptsMax`. */
  maxAttempts?: number;
}

/**
 * The names the client's options had before they were named qualifier last,
 * as the node's settings are (`frameBytesMax`, `writeBufferBytesMax`). Still
 * accepted: each resolves onto its new name, with a warning (once per logger)
 * through `logger`; given together with the new name and a different value,
 * the options are refused (OptionNameConflictError), since one of the two is
 * a mistake and either choice would be a silent guess.
 */
export interface DeprecatedOnceClientOptionNames {
  /** @deprecated Use `inFlightMax`. */
  maxInFlight?: number;
  /** @deprecated Use `queuedMax`. */
  maxQueued?: number;
  /** @deprecated Use `frameBytesMax`. */
  maxFrameBytes?: number;
}

/**
 * Options of {@link OnceClient.connect}. The node is given either by `host`
 * and `port` (one node) or by `nodes` (several nodes serving the same client
 * table, for failover); giving both is an error.
 */
export interface OnceClientOptions extends DeprecatedOnceClientOptionNames {
  /** The node's address. Default '127.0.0.1'. Not with `nodes`. */
  host?: string;
  /** The node's TCP port. Required unless `nodes` is given. */
  port?: number;
  /**
   * Several nodes of one cluster, each `{ host, port }`, instead of
   * `host`/`port`. Default: none (the single node of `host`/`port`). List
   * every node of the cluster, each as it advertises itself
   * (`ONCE_ADVERTISE`): a follower sends the client to its leader only if
   * the client may trust that address (`trustLeaderHints`), and over plain
   * TCP that means it is listed here.
   *
   * The first connect tries them in this order. When the connection drops,
   * when a connect or a bind fails, or when a node answers NOT_READY (it
   * replays, or is a cluster follower), the client moves on to the
   * next node at once, wrapping around; once every node was tried in a row
   * without a bind (a round), it waits the `reconnect` backoff delay of that
   * round's number. So a dead node costs one `connectTimeoutMs`, not a
   * backoff step, and `reconnect.attemptsMax` counts rounds. A follower's
   * NOT_READY that names a leader the client trusts sends the next attempt
   * there at once (at most once between two backoff delays, so nodes naming
   * each other cannot keep the client from waiting). On whichever node
   * answers, the session is resumed (resume token, else REGISTER of the same
   * client id) and every in-doubt command is resent under its original
   * request number.
   *
   * `connect()` rejects with ConnectError when no node of the first round
   * could be reached or bound, and with LeaderNotTrustedError when none bound
   * and a follower named a leader the client does not trust (no retry: it
   * would never serve). Nodes that answer NOT_READY naming no leader are
   * waited for, each wait reported (`waiting` event, `logger`).
   */
  nodes?: ReadonlyArray<NodeAddress>;
  /**
   * Which leader hints the client follows (the leader a follower names in its
   * NOT_READY, or a node in its PING reply) when the address is not one of
   * its configured nodes (`nodes`, or `host`/`port`). The hint is read from
   * the cluster's NATS, so anyone who can write there can forge it; the
   * client would send its REGISTER (username and password) to it.
   * - `'configured'`: only configured nodes are ever connected to;
   * - `'tls'` (default): configured nodes, or any address named over a TLS
   *   connection whose certificate the client verified (`tls` on, without
   *   `rejectUnauthorized: false`); the new connection is verified TLS too;
   * - `'any'`: any address, also over plain TCP. Only where the network and
   *   the cluster's NATS are trusted.
   * A hint that is not trusted is not connected to: `connect()` fails with
   * LeaderNotTrustedError (naming the follower, its role and the leader);
   * a running client waits and retries its configured nodes, saying so
   * (`waiting` with reason `leader-not-trusted`).
   */
  trustLeaderHints?: LeaderHintTrust;
  /**
   * Learn nodes from the nodes themselves: at each connection the client
   * sends a PING, and a `leader` field in its reply (`host:port`, the address
   * the cluster's leader advertises) is added to the client's node list if
   * it is new and trusted (`trustLeaderHints`: named over verified TLS, or
   * `'any'`; at most 16 learnt addresses; a configured node is never
   * removed). Absent, null or malformed `leader` fields are ignored. A leader
   * named in a NOT_READY is added and followed under the same rule, whatever
   * this option says. Default: true with `nodes`, false with `host`/`port`
   * (no PING is sent).
   */
  learnNodes?: boolean;
  /**
   * Where the client says what its reconnect loop waits for (a node not
   * ready, a leader it does not trust, no connection): a line at the first
   * wait, then at most one per 30 s, each counting the waits it stands for,
   * and one when a session is bound again; and one when a running client
   * gives up. `console` and a NestJS `Logger` fit. `false`: no lines.
   * Default: `console`.
   */
  logger?: OnceClientLogger | false;
  /**
   * Called with every event of `events$`, from the first connect attempt on:
   * unlike a subscription to `events$`, it also sees what happens before
   * `connect()` resolves (the `waiting` of a connect that waits for a node
   * to be ready). An exception it throws is ignored. Default: none.
   */
  onEvent?: (event: OnceClientEvent) => void;
  /** Credentials of the REGISTER (kept: every resume by REGISTER needs them again). */
  username: string;
  password: string;
  /**
   * The client id of the session. Default: a random one. An existing session
   * of the same user under this id is resumed, and numbering continues after
   * its watermark. Ignored (must match, if given) when `identityFile` exists.
   */
  clientId?: ClientId;
  /**
   * Path of a file that keeps the identity and the in-doubt commands across
   * process crashes. Default: none (a crash of this process leaves its
   * in-doubt commands unsettled). Only one live client may use a file.
   */
  identityFile?: string;
  /**
   * Commands sent and not yet answered, at most. Default 8: the node's
   * default ring, so that every in-doubt command is still in the node's reply
   * cache when it is resent (above the node's ring, a retry may be answered
   * ALREADY_APPLIED). The node itself never admits more than its ring.
   */
  inFlightMax?: number;
  /**
   * Commands accepted but not yet sent, at most. Default 1024. Beyond it a
   * command waits for room before it is queued (backpressure).
   */
  queuedMax?: number;
  /**
   * Per-request timeout of the caller's promise, from the call, ms. Default
   * 30000; 0 = none. A timeout never withdraws a command that was sent (see
   * RequestTimeoutError). It also bounds how long `close()` waits.
   */
  requestTimeoutMs?: number;
  reconnect?: ReconnectOptions;
  /**
   * Bound of one connection attempt, TCP connect and the session bind
   * (REGISTER or resume) together, ms. Default 5000. With `nodes`, what an
   * unreachable node that does not refuse the connection costs before the
   * next node is tried.
   */
  connectTimeoutMs?: number;
  /**
   * Largest request frame (header + body) the node accepts, bytes. Default
   * 1 MiB, the node's default `frameBytesMax`. Larger requests are refused
   * locally (InvalidPayloadError) instead of making the node close the connection.
   */
  frameBytesMax?: number;
  /**
   * Connect with TLS. `true` uses the system's trusted CAs; an object is
   * passed to `tls.connect` (e.g. `{ ca }` for a private CA, `servername`).
   * Default: plain TCP.
   */
  tls?: boolean | ConnectionOptions;
}

/** The options with every default filled in, under their new names only. */
export interface ResolvedOptions {
  /** `nodes`, or the one node of `host`/`port`. */
  readonly nodes: readonly NodeAddress[];
  readonly learnNodes: boolean;
  readonly trustLeaderHints: LeaderHintTrust;
  readonly logger: OnceClientLogger | undefined;
  readonly onEvent: ((event: OnceClientEvent) => void) | undefined;
  readonly username: string;
  readonly password: string;
  readonly clientId: ClientId | undefined;
  readonly identityFile: string | undefined;
  readonly inFlightMax: number;
  readonly queuedMax: number;
  readonly requestTimeoutMs: number;
  readonly reconnect: BackoffSettings & { readonly attemptsMax: number };
  readonly connectTimeoutMs: number;
  readonly frameBytesMax: number;
  readonly tls: ConnectionOptions | undefined;
}

export const DEFAULT_OPTIONS = {
  host: '127.0.0.1',
  trustLeaderHints: 'tls',
  inFlightMax: 8,
  queuedMax: 1024,
  requestTimeoutMs: 30_000,
  connectTimeoutMs: 5_000,
  frameBytesMax: DEFAULT_MAX_FRAME_BYTES,
  reconnect: {
    initialDelayMs: 50,
    delayMsMax: 2_000,
    factor: 2,
    jitter: 0.2,
    attemptsMax: Number.POSITIVE_INFINITY,
  },
} as const;

/**
 * Fills in the defaults and validates; throws {@link InvalidOptionsError}
 * naming the first bad option, or {@link OptionNameConflictError} when an
 * option is given under its new and its deprecated name with different values.
 */
export function resolveOptions(options: OnceClientOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionsError('options must be an object');
  }
  const nodes = resolveNodes(options);
  const learnNodes = options.learnNodes ?? options.nodes !== undefined;
  if (typeof learnNodes !== 'boolean') fail('learnNodes', learnNodes, 'a boolean');
  const trustLeaderHints = options.trustLeaderHints ?? DEFAULT_OPTIONS.trustLeaderHints;
  if (!LEADER_HINT_TRUSTS.includes(trustLeaderHints)) {
    fail('trustLeaderHints', trustLeaderHints, `one of ${LEADER_HINT_TRUSTS.join(', ')}`);
  }
  const logger = options.logger === undefined ? console : options.logger || undefined;
  if (logger !== undefined && typeof (logger as Partial<OnceClientLogger>).warn !== 'function') {
    fail('logger', logger, 'an object with a warn(message) method, or false');
  }
  const onEvent = options.onEvent;
  if (onEvent !== undefined && typeof onEvent !== 'function')
    fail('onEvent', onEvent, 'a function');
  if (typeof options.username !== 'string') fail('username', options.username, 'a string');
  if (typeof options.password !== 'string') fail('password', options.password, 'a string');
  const clientId = options.clientId;
  if (clientId !== undefined && (!isClientId(clientId) || clientId === ZERO_CLIENT_ID)) {
    fail('clientId', clientId, 'a non-zero client id (32 lowercase hex digits)');
  }
  const identityFile = options.identityFile;
  if (identityFile !== undefined && (typeof identityFile !== 'string' || identityFile === '')) {
    fail('identityFile', identityFile, 'a non-empty path');
  }
  const renamed = renamedOptions(options, logger);
  const inFlightMax = renamed.inFlightMax ?? DEFAULT_OPTIONS.inFlightMax;
  if (!isInteger(inFlightMax, 1, 1_000_000)) fail('inFlightMax', inFlightMax, 'an integer ≥ 1');
  const queuedMax = renamed.queuedMax ?? DEFAULT_OPTIONS.queuedMax;
  if (!isInteger(queuedMax, 1, Number.MAX_SAFE_INTEGER)) {
    fail('queuedMax', queuedMax, 'an integer ≥ 1');
  }
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_OPTIONS.requestTimeoutMs;
  if (!isInteger(requestTimeoutMs, 0, 2 ** 31 - 1)) {
    fail('requestTimeoutMs', requestTimeoutMs, 'an integer ≥ 0 (0: none)');
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_OPTIONS.connectTimeoutMs;
  if (!isInteger(connectTimeoutMs, 1, 2 ** 31 - 1)) {
    fail('connectTimeoutMs', connectTimeoutMs, 'an integer ≥ 1');
  }
  const frameBytesMax = renamed.frameBytesMax ?? DEFAULT_OPTIONS.frameBytesMax;
  if (!isInteger(frameBytesMax, 129, 2 ** 32 - 1)) {
    fail('frameBytesMax', frameBytesMax, 'an integer in 129..2^32-1');
  }
  const given = options.reconnect ?? {};
  const defaults = DEFAULT_OPTIONS.reconnect;
  const reconnect = {
    initialDelayMs: given.initialDelayMs ?? defaults.initialDelayMs,
    delayMsMax: renamed.delayMsMax ?? defaults.delayMsMax,
    factor: given.factor ?? defaults.factor,
    jitter: given.jitter ?? defaults.jitter,
    attemptsMax: renamed.attemptsMax ?? defaults.attemptsMax,
  };
  if (!isFiniteAtLeast(reconnect.initialDelayMs, 0)) {
    fail('reconnect.initialDelayMs', reconnect.initialDelayMs, 'a number ≥ 0');
  }
  if (!isFiniteAtLeast(reconnect.delayMsMax, reconnect.initialDelayMs)) {
    fail('reconnect.delayMsMax', reconnect.delayMsMax, 'a number ≥ reconnect.initialDelayMs');
  }
  if (!isFiniteAtLeast(reconnect.factor, 1)) fail('reconnect.factor', reconnect.factor, '≥ 1');
  if (!isFiniteAtLeast(reconnect.jitter, 0) || reconnect.jitter > 1) {
    fail('reconnect.jitter', reconnect.jitter, 'a number in [0, 1]');
  }
  const attempts = reconnect.attemptsMax;
  if (!(attempts === Number.POSITIVE_INFINITY || isInteger(attempts, 1, Number.MAX_SAFE_INTEGER))) {
    fail('reconnect.attemptsMax', attempts, 'an integer ≥ 1 or Infinity');
  }
  return {
    nodes,
    learnNodes,
    trustLeaderHints,
    logger,
    onEvent,
    username: options.username,
    password: options.password,
    clientId,
    identityFile,
    inFlightMax,
    queuedMax,
    requestTimeoutMs,
    reconnect,
    connectTimeoutMs,
    frameBytesMax,
    tls: options.tls === true ? {} : options.tls || undefined,
  };
}

/** Deprecated option name → its new name; `reconnect.` ones are read in `reconnect`. */
const DEPRECATED_NAMES = {
  maxInFlight: 'inFlightMax',
  maxQueued: 'queuedMax',
  maxFrameBytes: 'frameBytesMax',
} as const satisfies Record<keyof DeprecatedOnceClientOptionNames, keyof OnceClientOptions>;

const DEPRECATED_RECONNECT_NAMES = {
  maxDelayMs: 'delayMsMax',
  maxAttempts: 'attemptsMax',
} as const satisfies Record<keyof DeprecatedReconnectOptionNames, keyof ReconnectOptions>;

/** The renamed options, each read under its new name or its deprecated one. */
type RenamedOptions = {
  [Name in (typeof DEPRECATED_NAMES)[keyof typeof DEPRECATED_NAMES]]: number | undefined;
} & {
  [Name in (typeof DEPRECATED_RECONNECT_NAMES)[keyof typeof DEPRECATED_RECONNECT_NAMES]]:
    number | undefined;
};

/**
 * The loggers already warned of each deprecated name: a service that makes
 * many clients with the same options (and the same logger, `console` by
 * default) is told once, not once per client.
 */
const warnedDeprecatedNames = new WeakMap<OnceClientLogger, Set<string>>();

/**
 * Reads every renamed option under its new name, else under its deprecated
 * one (warning through `logger`, once per name and logger). Both given with
 * different values: OptionNameConflictError; with the same value, accepted.
 */
function renamedOptions(
  options: OnceClientOptions,
  logger: OnceClientLogger | undefined,
): RenamedOptions {
  const read = (
    given: Record<string, unknown>,
    names: Record<string, string>,
    prefix: string,
  ): Record<string, unknown> => {
    const values: Record<string, unknown> = {};
    for (const [deprecated, name] of Object.entries(names)) {
      const value = given[name];
      const old = given[deprecated];
      values[name] = value;
      if (old === undefined) continue;
      if (value !== undefined && !Object.is(value, old)) {
        throw new OptionNameConflictError(prefix + name, prefix + deprecated, {
          given: value,
          deprecated: old,
        });
      }
      values[name] = old;
      warnDeprecated(logger, prefix + deprecated, prefix + name);
    }
    return values;
  };
  const reconnect = (options.reconnect ?? {}) as Record<string, unknown>;
  return {
    ...read(options as unknown as Record<string, unknown>, DEPRECATED_NAMES, ''),
    ...read(reconnect, DEPRECATED_RECONNECT_NAMES, 'reconnect.'),
  } as RenamedOptions;
}

function warnDeprecated(logger: OnceClientLogger | undefined, deprecated: string, name: string) {
  if (logger === undefined) return;
  let warned = warnedDeprecatedNames.get(logger);
  if (warned === undefined) warnedDeprecatedNames.set(logger, (warned = new Set()));
  if (warned.has(deprecated)) return;
  warned.add(deprecated);
  try {
    logger.warn(`once client: option ${deprecated} is deprecated; use ${name}`);
  } catch {
    // A logger that throws must not keep the client from connecting.
  }
}

/** The node list: `nodes` (validated, copied), or the one node of `host`/`port`. */
function resolveNodes(options: OnceClientOptions): NodeAddress[] {
  const given = options.nodes;
  if (given === undefined) {
    const host = options.host ?? DEFAULT_OPTIONS.host;
    if (typeof host !== 'string' || host.length === 0) fail('host', host, 'a non-empty string');
    const port = options.port;
    if (!isPort(port)) fail('port', port, 'an integer in 1..65535');
    return [{ host, port }];
  }
  if (options.host !== undefined || options.port !== undefined) {
    throw new InvalidOptionsError(
      'options host/port and nodes exclude each other: give host and port for one node, or nodes for several',
    );
  }
  if (!Array.isArray(given) || given.length === 0) {
    fail('nodes', given, 'a non-empty array of { host, port }');
  }
  const nodes: NodeAddress[] = [];
  (given as readonly unknown[]).forEach((node, index) => {
    const { host, port } = (typeof node === 'object' && node !== null ? node : {}) as {
      host?: unknown;
      port?: unknown;
    };
    if (typeof host !== 'string' || host.length === 0) {
      fail(`nodes[${index}].host`, host, 'a non-empty string');
    }
    if (!isPort(port)) fail(`nodes[${index}].port`, port, 'an integer in 1..65535');
    const address = { host, port };
    if (nodes.some((known) => sameNodeAddress(known, address))) {
      fail(`nodes[${index}]`, formatNodeAddress(address), 'a node not listed before');
    }
    nodes.push(address);
  });
  return nodes;
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function isFiniteAtLeast(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min;
}

function fail(name: string, value: unknown, expected: string): never {
  throw new InvalidOptionsError(`option ${name} must be ${expected}, got ${String(value)}`);
}
