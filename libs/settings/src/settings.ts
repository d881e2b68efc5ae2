import { DEFAULT_MAX_FRAME_BYTES } from '@once/protocol/internal';

/** Which part of the node a setting configures. */
export type SettingLayer =
  /** `GatewayOptions` of `OnceServer` (`@once/gateway`). */
  | 'gateway'
  /** `OnceModuleOptions` (`@once/framework`) and the engine under it. */
  | 'engine'
  /**
   * An application's own settings (the reference service's admin user, TLS
   * files, operations listener, …): rows the application holds beside its
   * code, in this shape, not rows of this table.
   */
  | 'server'
  /** Cluster mode (`@once/cluster`): the NATS servers, this node's names, replication. */
  | 'cluster';

/**
 * How a value is written on the command line or in the environment:
 * - `integer`: decimal digits;
 * - `bytes`: digits with an optional `KiB`/`MiB` (or `k`, `m`, `kb`, `mb`) suffix;
 * - `duration`: milliseconds, or digits with `ms`, `s`, `m`, `h` or `d`;
 * - `text`, `secret`: any string (a secret is never shown as a default);
 * - `choice`: one of `choices`;
 * - `switch`: a flag without a value (no variable);
 * - `name`: 1 to 64 letters, digits, `-` or `_` (valid in NATS stream, bucket,
 *   subject and key tokens alike);
 * - `address`: `host:port`, the host a name, an IPv4 address or a bracketed IPv6 one;
 * - `nats-urls`: comma-separated `nats://host[:port]` or `tls://host[:port]` URLs.
 */
export type SettingKind =
  | 'integer'
  | 'bytes'
  | 'duration'
  | 'text'
  | 'secret'
  | 'choice'
  | 'switch'
  | 'name'
  | 'address'
  | 'nats-urls';

/** The previous names of a renamed setting, still accepted (deprecated). */
export interface SettingAliases {
  /** Old code names: `GatewayOptions` properties, fields of the service's config. */
  readonly names: readonly string[];
  readonly env?: string;
  readonly flag?: string;
}

/** One row of the settings table. */
export interface SettingSpec {
  /** Code name: `GatewayOptions` / `OnceModuleOptions` property and config field. */
  readonly name: string;
  /** Environment variable: `ONCE_` and the code name in upper snake case. */
  readonly env?: string;
  /** Flag: `--` and the code name in kebab case. */
  readonly flag: string;
  /** The flag's value placeholder in the help (`<count>`); none for a switch. */
  readonly argument?: string;
  readonly kind: SettingKind;
  /** Default value; undefined: none (off, or required). */
  readonly default?: number | string | boolean;
  /** The README's default cell (markdown) when the raw value would not read well. */
  readonly defaultText?: string;
  /** Inclusive range of a numeric setting (after units are applied). */
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
  /** Unit of a numeric value (its name carries it too, qualifier last). */
  readonly unit?: string;
  /** One line for the README and the help. */
  readonly description: string;
  readonly layer: SettingLayer;
  readonly aliases?: SettingAliases;
}

const HOUR_MS = 3_600_000;

/**
 * Every setting of the once packages (the gateway's, the engine's, cluster
 * mode's), in the order the help and the configuration reference list them.
 * An application's own settings are not here: it holds them beside its code
 * (the reference service in apps/server/src/config/server-settings.ts) and
 * places them among these. One name per setting: the code name,
 * `ONCE_<UPPER_SNAKE>` and `--<kebab>` spell the same words, qualifier last
 * (`connectionsMax`, `ONCE_CONNECTIONS_MAX`, `--connections-max`).
 */
export const SETTINGS = [
  {
    name: 'host',
    env: 'ONCE_HOST',
    flag: '--host',
    argument: '<address>',
    kind: 'text',
    default: '127.0.0.1',
    description: 'interface to listen on',
    layer: 'gateway',
  },
  {
    name: 'port',
    env: 'ONCE_PORT',
    flag: '--port',
    argument: '<port>',
    kind: 'integer',
    default: 7700,
    min: 0,
    max: 65_535,
    description: 'TCP port (0: any free port, logged)',
    layer: 'gateway',
  },
  {
    name: 'dataDir',
    env: 'ONCE_DATA_DIR',
    flag: '--data-dir',
    argument: '<path>',
    kind: 'text',
    default: './data',
    description: 'LevelDB data directory, one process at a time',
    layer: 'engine',
  },
  {
    name: 'clientsMax',
    env: 'ONCE_CLIENTS_MAX',
    flag: '--clients-max',
    argument: '<count>',
    kind: 'integer',
    default: 8192,
    min: 1,
    max: 10_000_000,
    unit: 'sessions',
    description:
      'client table capacity; when full, the least recently committing session is evicted',
    layer: 'engine',
  },
  {
    name: 'ring',
    env: 'ONCE_RING',
    flag: '--ring',
    argument: '<count>',
    kind: 'integer',
    default: 8,
    min: 1,
    max: 1024,
    unit: 'replies',
    description: 'replies cached per session, which is also the requests in flight per session',
    layer: 'engine',
  },
  {
    name: 'sessionTtlMs',
    env: 'ONCE_SESSION_TTL_MS',
    flag: '--session-ttl-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 0,
    defaultText: '`0` (never)',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    unit: 'ms',
    description: 'expire sessions idle this long by journal time (90s, 30m, 24h; 0: never)',
    layer: 'engine',
    aliases: { names: [], env: 'ONCE_SESSION_TTL', flag: '--session-ttl' },
  },
  {
    name: 'httpKeyRetentionMs',
    env: 'ONCE_HTTP_KEY_RETENTION_MS',
    flag: '--http-key-retention-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 24 * HOUR_MS,
    defaultText: '`24h`',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    unit: 'ms',
    description:
      'how long (by journal time) an Idempotency-Key of an exactly-once HTTP endpoint is remembered with its response; a retry after that applies again',
    layer: 'engine',
  },
  {
    name: 'httpKeysMax',
    env: 'ONCE_HTTP_KEYS_MAX',
    flag: '--http-keys-max',
    argument: '<count>',
    kind: 'integer',
    default: 1_000_000,
    min: 1,
    max: 100_000_000,
    unit: 'keys',
    description:
      'Idempotency-Keys remembered at once (keyed records in LevelDB, not memory); beyond it the oldest is forgotten early (a retry of it would apply again)',
    layer: 'engine',
  },
  {
    name: 'snapshotEveryOps',
    env: 'ONCE_SNAPSHOT_EVERY_OPS',
    flag: '--snapshot-every-ops',
    argument: '<ops>',
    kind: 'integer',
    default: 100_000,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    unit: 'ops',
    description: 'take a snapshot every this many ops (0: only at a graceful stop)',
    layer: 'engine',
    aliases: { names: ['snapshotEvery'], env: 'ONCE_SNAPSHOT_EVERY', flag: '--snapshot-every' },
  },
  {
    name: 'checkpointIntervalMs',
    env: 'ONCE_CHECKPOINT_INTERVAL_MS',
    flag: '--checkpoint-interval-ms',
    argument: '<ms>',
    kind: 'integer',
    default: 100,
    min: 0,
    max: 3_600_000,
    unit: 'ms',
    description:
      'with keyed state: least time between two checkpoints, each written after a group commit with what changed since the last one and the op it covers, so a restart replays only what came after the newest (0: none, records are written with the scheduled snapshots only)',
    layer: 'engine',
  },
  {
    name: 'keyedCacheEntries',
    env: 'ONCE_KEYED_CACHE_ENTRIES',
    flag: '--keyed-cache-entries',
    argument: '<records>',
    kind: 'integer',
    default: 1_048_576,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    unit: 'records',
    description:
      'keyed-state records kept in memory to read from (besides those changed since the last snapshot); the rest are read from LevelDB',
    layer: 'engine',
  },
  {
    name: 'keyedCacheBytes',
    env: 'ONCE_KEYED_CACHE_BYTES',
    flag: '--keyed-cache-bytes',
    argument: '<bytes>',
    kind: 'bytes',
    default: 64 * 1024 * 1024,
    defaultText: '`64MiB`',
    min: 0,
    max: 2 ** 32 - 1,
    unit: 'bytes',
    description:
      'bytes of keyed-state records kept in memory to read from, outside the JavaScript heap (a record larger than a sixteenth of it is read from LevelDB each time; under 4KiB: no cache)',
    layer: 'engine',
  },
  {
    name: 'journalRetain',
    env: 'ONCE_JOURNAL_RETAIN',
    flag: '--journal-retain',
    argument: '<snapshots>',
    kind: 'integer',
    default: 0,
    min: 0,
    max: 1000,
    unit: 'snapshots',
    description:
      'keep the journal from the oldest of the newest this many snapshots on; older entries are deleted (0: keep all)',
    layer: 'engine',
  },
  {
    name: 'replyChecks',
    env: 'ONCE_REPLY_CHECKS',
    flag: '--reply-checks',
    argument: '<on|off>',
    kind: 'choice',
    default: 'on',
    choices: ['on', 'off'],
    description:
      "journal each group's reply checksums, so a replay or a follower whose handler replies otherwise stops (NONDETERMINISTIC_APPLY)",
    layer: 'engine',
  },
  {
    name: 'upgradeFinalization',
    env: 'ONCE_UPGRADE_FINALIZATION',
    flag: '--upgrade-finalization',
    argument: '<auto|hold>',
    kind: 'choice',
    default: 'auto',
    choices: ['auto', 'hold'],
    description:
      'when new module versions take effect: auto, at boot (a cluster: once every live node has them); hold, not yet',
    layer: 'engine',
  },
  {
    name: 'retiredStates',
    env: 'ONCE_RETIRED_STATES',
    flag: '--retired-states',
    argument: '<names>',
    kind: 'text',
    defaultText: 'none',
    description:
      'comma-separated replicated states retired on purpose: their snapshot data is dropped instead of refused (STATE_NOT_PROVIDED)',
    layer: 'engine',
  },
  {
    name: 'retiredCommands',
    env: 'ONCE_RETIRED_COMMANDS',
    flag: '--retired-commands',
    argument: '<patterns>',
    kind: 'text',
    defaultText: 'none',
    description:
      'comma-separated command patterns retired on purpose: their journaled entries change nothing and answer COMMAND_RETIRED',
    layer: 'engine',
  },
  {
    name: 'frameBytesMax',
    env: 'ONCE_FRAME_BYTES_MAX',
    flag: '--frame-bytes-max',
    argument: '<bytes>',
    kind: 'bytes',
    default: DEFAULT_MAX_FRAME_BYTES,
    defaultText: '`1MiB`',
    min: 128,
    max: 2 ** 32 - 1,
    unit: 'bytes',
    description: 'largest frame (header and body) accepted; a larger one is BAD_FRAME',
    layer: 'gateway',
    aliases: { names: ['maxFrameBytes'], env: 'ONCE_MAX_FRAME', flag: '--max-frame' },
  },
  {
    name: 'connectionsMax',
    env: 'ONCE_CONNECTIONS_MAX',
    flag: '--connections-max',
    argument: '<count>',
    kind: 'integer',
    default: 10_000,
    min: 1,
    max: 1_000_000,
    unit: 'connections',
    description: 'open connections at once; further ones are closed on accept',
    layer: 'gateway',
    aliases: {
      names: ['maxConnections'],
      env: 'ONCE_MAX_CONNECTIONS',
      flag: '--max-connections',
    },
  },
  {
    name: 'pendingEntriesMax',
    env: 'ONCE_PENDING_ENTRIES_MAX',
    flag: '--pending-entries-max',
    argument: '<entries>',
    kind: 'integer',
    default: 65_536,
    min: 1,
    max: 10_000_000,
    unit: 'entries',
    description: 'journal entries admitted but not yet durable before reads pause',
    layer: 'gateway',
    aliases: { names: ['maxPendingEntries'], env: 'ONCE_MAX_PENDING', flag: '--max-pending' },
  },
  {
    name: 'writeBufferBytesMax',
    env: 'ONCE_WRITE_BUFFER_BYTES_MAX',
    flag: '--write-buffer-bytes-max',
    argument: '<bytes>',
    kind: 'bytes',
    default: 64 * 1024 * 1024,
    defaultText: '`64MiB`',
    min: 1024,
    max: 2 ** 40,
    unit: 'bytes',
    description:
      'reply bytes a peer may leave unread (from earlier event-loop turns, or for a slow-peer sweep interval) before its connection closes',
    layer: 'gateway',
    aliases: {
      names: ['maxWriteBufferBytes'],
      env: 'ONCE_MAX_WRITE_BUFFER',
      flag: '--max-write-buffer',
    },
  },
  {
    name: 'partialFrameTimeoutMs',
    env: 'ONCE_PARTIAL_FRAME_TIMEOUT_MS',
    flag: '--partial-frame-timeout-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 10_000,
    defaultText: '`10s`',
    min: 1,
    max: 24 * HOUR_MS,
    unit: 'ms',
    description: 'a frame begun but not finished in time: BAD_FRAME, then close',
    layer: 'gateway',
    aliases: {
      names: [],
      env: 'ONCE_PARTIAL_FRAME_TIMEOUT',
      flag: '--partial-frame-timeout',
    },
  },
  {
    name: 'idleUnboundTimeoutMs',
    env: 'ONCE_IDLE_UNBOUND_TIMEOUT_MS',
    flag: '--idle-unbound-timeout-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 60_000,
    defaultText: '`60s`',
    min: 1,
    max: 24 * HOUR_MS,
    unit: 'ms',
    description: 'close a connection that holds no session and sends nothing this long',
    layer: 'gateway',
    aliases: { names: ['idleTimeoutMs'], env: 'ONCE_IDLE_TIMEOUT', flag: '--idle-timeout' },
  },
  {
    name: 'registerFailuresPerAddressPerMinuteMax',
    env: 'ONCE_REGISTER_FAILURES_PER_ADDRESS_PER_MINUTE_MAX',
    flag: '--register-failures-per-address-per-minute-max',
    argument: '<count>',
    kind: 'integer',
    default: 30,
    min: 1,
    max: 1_000_000,
    unit: 'failures',
    description:
      'failed REGISTERs per address per minute; past it each failure from that address is answered after a growing delay (credentials are always checked)',
    layer: 'gateway',
    aliases: {
      names: ['registerFailuresPerMinute', 'maxFailedRegistersPerAddressPerMinute'],
      env: 'ONCE_REGISTER_FAILURES_PER_MINUTE',
      flag: '--register-failures-per-minute',
    },
  },
  {
    name: 'registerFailuresPerConnectionMax',
    env: 'ONCE_REGISTER_FAILURES_PER_CONNECTION_MAX',
    flag: '--register-failures-per-connection-max',
    argument: '<count>',
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1_000_000,
    unit: 'failures',
    description: 'failed REGISTERs before the connection is closed',
    layer: 'gateway',
    aliases: {
      names: ['registerFailuresPerConnection', 'maxFailedRegistersPerConnection'],
      env: 'ONCE_REGISTER_FAILURES_PER_CONNECTION',
      flag: '--register-failures-per-connection',
    },
  },
  {
    name: 'registerFailuresPerUserPerMinuteMax',
    env: 'ONCE_REGISTER_FAILURES_PER_USER_PER_MINUTE_MAX',
    flag: '--register-failures-per-user-per-minute-max',
    argument: '<count>',
    kind: 'integer',
    default: 10,
    min: 1,
    max: 1_000_000,
    unit: 'failures',
    description:
      'failed REGISTERs per username per minute; past it that username is checked one attempt at a time, each failure answered after a growing delay',
    layer: 'gateway',
  },
  {
    name: 'connectionsPerAddressMax',
    env: 'ONCE_CONNECTIONS_PER_ADDRESS_MAX',
    flag: '--connections-per-address-max',
    argument: '<count>',
    kind: 'integer',
    default: 4096,
    min: 1,
    max: 1_000_000,
    unit: 'connections',
    description:
      'open connections from one peer address at once; a further one from it is closed on accept',
    layer: 'gateway',
  },
  {
    name: 'unboundTimeoutMs',
    env: 'ONCE_UNBOUND_TIMEOUT_MS',
    flag: '--unbound-timeout-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 30_000,
    defaultText: '`30s`',
    min: 1,
    max: 24 * HOUR_MS,
    unit: 'ms',
    description:
      'close a connection that holds no session this long (since it opened or lost its session), whatever it sends',
    layer: 'gateway',
  },
  {
    name: 'natsServers',
    env: 'ONCE_NATS_SERVERS',
    flag: '--nats-servers',
    argument: '<urls>',
    kind: 'nats-urls',
    defaultText: 'off',
    description:
      'NATS servers of the cluster (comma-separated nats:// or tls:// URLs; credentials in them are used, never logged); set means cluster mode (see "Cluster")',
    layer: 'cluster',
  },
  {
    name: 'natsConnectTimeoutMs',
    env: 'ONCE_NATS_CONNECT_TIMEOUT_MS',
    flag: '--nats-connect-timeout-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 20_000,
    min: 100,
    max: 600_000,
    unit: 'ms',
    description:
      'how long the first connection to NATS may take at start before the node exits with NATS_UNREACHABLE',
    layer: 'cluster',
  },
  {
    name: 'natsUser',
    env: 'ONCE_NATS_USER',
    flag: '--nats-user',
    argument: '<name>',
    kind: 'text',
    description:
      'NATS user name; its password comes from ONCE_NATS_PASSWORD_FILE or ONCE_NATS_PASSWORD',
    layer: 'cluster',
  },
  {
    name: 'natsPassword',
    env: 'ONCE_NATS_PASSWORD',
    flag: '--nats-password',
    argument: '<password>',
    kind: 'secret',
    description:
      "the NATS user's password (the flag is visible to ps: prefer ONCE_NATS_PASSWORD_FILE or the variable)",
    layer: 'cluster',
  },
  {
    name: 'natsPasswordFile',
    env: 'ONCE_NATS_PASSWORD_FILE',
    flag: '--nats-password-file',
    argument: '<path>',
    kind: 'text',
    description: "file holding the NATS user's password (one trailing newline is ignored)",
    layer: 'cluster',
  },
  {
    name: 'natsToken',
    env: 'ONCE_NATS_TOKEN',
    flag: '--nats-token',
    argument: '<token>',
    kind: 'secret',
    description:
      'NATS authentication token (the flag is visible to ps: prefer ONCE_NATS_TOKEN_FILE or the variable)',
    layer: 'cluster',
  },
  {
    name: 'natsTokenFile',
    env: 'ONCE_NATS_TOKEN_FILE',
    flag: '--nats-token-file',
    argument: '<path>',
    kind: 'text',
    description: 'file holding the NATS authentication token (one trailing newline is ignored)',
    layer: 'cluster',
  },
  {
    name: 'natsNkeySeedFile',
    env: 'ONCE_NATS_NKEY_SEED_FILE',
    flag: '--nats-nkey-seed-file',
    argument: '<path>',
    kind: 'text',
    description: "file holding this node's NATS user nkey seed (`SU…`): nkey authentication",
    layer: 'cluster',
  },
  {
    name: 'natsCredsFile',
    env: 'ONCE_NATS_CREDS_FILE',
    flag: '--nats-creds-file',
    argument: '<path>',
    kind: 'text',
    description:
      'NATS credentials file (user JWT and nkey seed, as `nsc` writes it): decentralised JWT authentication',
    layer: 'cluster',
  },
  {
    name: 'natsTlsCaFile',
    env: 'ONCE_NATS_TLS_CA_FILE',
    flag: '--nats-tls-ca-file',
    argument: '<path>',
    kind: 'text',
    description:
      "PEM CA bundle the NATS servers' certificates are verified against (default: the system's); set, TLS is required",
    layer: 'cluster',
  },
  {
    name: 'natsTlsCertFile',
    env: 'ONCE_NATS_TLS_CERT_FILE',
    flag: '--nats-tls-cert-file',
    argument: '<path>',
    kind: 'text',
    description:
      'PEM client certificate this node presents to NATS (with ONCE_NATS_TLS_KEY_FILE); set, TLS is required',
    layer: 'cluster',
  },
  {
    name: 'natsTlsKeyFile',
    env: 'ONCE_NATS_TLS_KEY_FILE',
    flag: '--nats-tls-key-file',
    argument: '<path>',
    kind: 'text',
    description: "PEM private key of this node's NATS client certificate",
    layer: 'cluster',
  },
  {
    name: 'natsTlsServerName',
    env: 'ONCE_NATS_TLS_SERVER_NAME',
    flag: '--nats-tls-server-name',
    argument: '<name>',
    kind: 'text',
    description:
      "the name the NATS servers' certificates must carry (default: each server URL's host); set, TLS is required",
    layer: 'cluster',
  },
  {
    name: 'clusterName',
    env: 'ONCE_CLUSTER_NAME',
    flag: '--cluster-name',
    argument: '<name>',
    kind: 'name',
    default: 'once',
    description:
      "names the cluster's journal stream and KV bucket, so clusters can share NATS servers",
    layer: 'cluster',
  },
  {
    name: 'clusterKeyFile',
    env: 'ONCE_CLUSTER_KEY_FILE',
    flag: '--cluster-key-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'none (required in cluster mode)',
    description:
      'file of the cluster key, the same on every node and never in NATS: one hex key of at least 32 bytes per line (`openssl rand -hex 32`), the first signs, all verify; it authenticates journal groups and the lease, and derives the resume-token secret (see docs/operating/cluster-key.md)',
    layer: 'cluster',
  },
  {
    name: 'clusterUnsignedThroughSeq',
    env: 'ONCE_CLUSTER_UNSIGNED_THROUGH_SEQ',
    flag: '--cluster-unsigned-through-seq',
    argument: '<seq>',
    kind: 'integer',
    default: 0,
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    description:
      'upgrading a cluster whose stream was written before cluster keys: its messages up to this stream sequence are accepted without a MAC (0: every message must verify)',
    layer: 'cluster',
  },
  {
    name: 'nodeId',
    env: 'ONCE_NODE_ID',
    flag: '--node-id',
    argument: '<id>',
    kind: 'name',
    description: "this node's id, unique in the cluster; required in cluster mode",
    layer: 'cluster',
  },
  {
    name: 'advertise',
    env: 'ONCE_ADVERTISE',
    flag: '--advertise',
    argument: '<host:port>',
    kind: 'address',
    description:
      'the address clients should use to reach this node: PING, and the NOT_READY of followers, name it when it leads',
    layer: 'cluster',
  },
  {
    name: 'clusterReplicas',
    env: 'ONCE_CLUSTER_REPLICAS',
    flag: '--cluster-replicas',
    argument: '<count>',
    kind: 'integer',
    default: 3,
    min: 1,
    max: 5,
    unit: 'replicas',
    description:
      'copies JetStream keeps of the journal stream and the KV bucket (when this node creates them)',
    layer: 'cluster',
  },
] as const satisfies readonly SettingSpec[];

/** A code name of the table. */
export type SettingName = (typeof SETTINGS)[number]['name'];

type SpecOf<N extends SettingName> = Extract<(typeof SETTINGS)[number], { name: N }>;

/** The type of a setting's value, by its kind. */
export type SettingValue<N extends SettingName> = SpecOf<N>['kind'] extends
  'integer' | 'bytes' | 'duration'
  ? number
  : SpecOf<N>['kind'] extends 'switch'
    ? boolean
    : string;

const BY_NAME: ReadonlyMap<string, SettingSpec> = new Map(
  SETTINGS.map((spec: SettingSpec) => [spec.name, spec]),
);

/** The table's row of `name`. */
export function setting(name: SettingName): SettingSpec {
  return BY_NAME.get(name)!;
}

/** The default of `name` (the table's, typed by the setting's kind). */
export function settingDefault<N extends SettingName>(name: N): SettingValue<N> {
  return setting(name).default as SettingValue<N>;
}

/** The defaults of `names`, as an object keyed by them. */
export function settingDefaults<N extends SettingName>(
  names: readonly N[],
): { readonly [K in N]: SettingValue<K> } {
  const defaults: Partial<Record<N, unknown>> = {};
  for (const name of names) defaults[name] = settingDefault(name);
  return Object.freeze(defaults) as { readonly [K in N]: SettingValue<K> };
}

/** The rows of one layer, in table order. */
export function settingsOfLayer(layer: SettingLayer): readonly SettingSpec[] {
  return SETTINGS.filter((spec: SettingSpec) => spec.layer === layer);
}
