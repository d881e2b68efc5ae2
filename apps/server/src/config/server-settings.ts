import { SETTINGS, type SettingSpec } from '@once/settings';

const HOUR_MS = 3_600_000;

/** The user admin, created with a new data directory. */
const ADMIN_SETTINGS = [
  {
    name: 'adminPassword',
    env: 'ONCE_ADMIN_PASSWORD',
    flag: '--admin-password',
    argument: '<password>',
    kind: 'secret',
    default: 'admin',
    defaultText: '`admin` (warned; refused on a non-loopback host)',
    description:
      'password of the user admin, created with a new data directory (the flag is visible to ps: prefer the variable)',
    layer: 'server',
  },
  {
    name: 'adminPasswordFile',
    env: 'ONCE_ADMIN_PASSWORD_FILE',
    flag: '--admin-password-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'none',
    description:
      'file holding the password of the user admin (trailing newline dropped); instead of adminPassword',
    layer: 'server',
  },
] as const satisfies readonly SettingSpec[];

/** TLS on the client port, from PEM files. */
const TLS_SETTINGS = [
  {
    name: 'tlsKeyFile',
    env: 'ONCE_TLS_KEY_FILE',
    flag: '--tls-key-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'off',
    description: 'PEM private key: serve TLS instead of plain TCP (with tlsCertFile)',
    layer: 'server',
    aliases: { names: [], env: 'ONCE_TLS_KEY', flag: '--tls-key' },
  },
  {
    name: 'tlsCertFile',
    env: 'ONCE_TLS_CERT_FILE',
    flag: '--tls-cert-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'off',
    description: 'PEM certificate chain: serve TLS instead of plain TCP (with tlsKeyFile)',
    layer: 'server',
    aliases: { names: [], env: 'ONCE_TLS_CERT', flag: '--tls-cert' },
  },
  {
    name: 'tlsCaFile',
    env: 'ONCE_TLS_CA_FILE',
    flag: '--tls-ca-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'off',
    description: 'PEM CA bundle: require client certificates signed by it',
    layer: 'server',
    aliases: { names: [], env: 'ONCE_TLS_CA', flag: '--tls-ca' },
  },
] as const satisfies readonly SettingSpec[];

/** The service's log lines. */
const LOG_SETTINGS = [
  {
    name: 'logFormat',
    env: 'ONCE_LOG_FORMAT',
    flag: '--log-format',
    argument: '<format>',
    kind: 'choice',
    default: 'text',
    choices: ['text', 'json'],
    description: 'log line format, one line per event',
    layer: 'server',
  },
  {
    name: 'logLevel',
    env: 'ONCE_LOG_LEVEL',
    flag: '--log-level',
    argument: '<level>',
    kind: 'choice',
    default: 'log',
    choices: ['error', 'warn', 'log', 'debug', 'verbose'],
    description: 'least severe level logged',
    layer: 'server',
  },
] as const satisfies readonly SettingSpec[];

/** The ledger's exactly-once HTTP API, beside the client port. */
const HTTP_SETTINGS = [
  {
    name: 'httpPort',
    env: 'ONCE_HTTP_PORT',
    flag: '--http-port',
    argument: '<port>',
    kind: 'integer',
    defaultText: 'off',
    min: 0,
    max: 65_535,
    description:
      "port of the ledger's HTTP API on `ONCE_HOST` (`POST /ledger/open`, `/ledger/deposit`, `/ledger/transfer` with an `Idempotency-Key`, `GET /ledger/balance`; basic auth against the users module; 0: any free port, logged); unset: no HTTP listener",
    layer: 'server',
  },
] as const satisfies readonly SettingSpec[];

/** The operations listener: metrics, health, the journal feed, and its credential. */
const OPERATIONS_SETTINGS = [
  {
    name: 'metricsPort',
    env: 'ONCE_METRICS_PORT',
    flag: '--metrics-port',
    argument: '<port>',
    kind: 'integer',
    defaultText: 'off',
    min: 0,
    max: 65_535,
    description:
      'HTTP port of /metrics, /health/live and /health/ready (0: any free port, logged); unset: no listener',
    layer: 'server',
  },
  {
    name: 'metricsHost',
    env: 'ONCE_METRICS_HOST',
    flag: '--metrics-host',
    argument: '<address>',
    kind: 'text',
    default: '127.0.0.1',
    description: 'interface of the metrics and health listener',
    layer: 'server',
  },
  {
    name: 'journalFeed',
    env: 'ONCE_JOURNAL_FEED',
    flag: '--journal-feed',
    argument: '<on|off>',
    kind: 'choice',
    default: 'off',
    choices: ['off', 'on'],
    description:
      'also serve the decoded journal at /journal on the metrics listener, for `once journal tail --follow`; needs operationsTokenFile (bodies shown as their commands declare, see "Security")',
    layer: 'server',
  },
  {
    name: 'operationsTokenFile',
    env: 'ONCE_OPERATIONS_TOKEN_FILE',
    flag: '--operations-token-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'off',
    description:
      'file holding the credential of the metrics listener (16+ characters): sent as `Authorization: Bearer <token>` (or as the password of basic auth); required by /journal, and by every route unless operationsAuthScope is journal',
    layer: 'server',
  },
  {
    name: 'operationsAuthScope',
    env: 'ONCE_OPERATIONS_AUTH_SCOPE',
    flag: '--operations-auth-scope',
    argument: '<all|journal>',
    kind: 'choice',
    default: 'all',
    choices: ['all', 'journal'],
    description:
      'with a credential: `all` routes need it, or only `journal` (then /metrics and /health/* stay open)',
    layer: 'server',
  },
  {
    name: 'operationsTlsKeyFile',
    env: 'ONCE_OPERATIONS_TLS_KEY_FILE',
    flag: '--operations-tls-key-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'off',
    description: 'PEM private key: the metrics listener serves HTTPS (with operationsTlsCertFile)',
    layer: 'server',
  },
  {
    name: 'operationsTlsCertFile',
    env: 'ONCE_OPERATIONS_TLS_CERT_FILE',
    flag: '--operations-tls-cert-file',
    argument: '<file>',
    kind: 'text',
    defaultText: 'off',
    description:
      'PEM certificate chain: the metrics listener serves HTTPS (with operationsTlsKeyFile)',
    layer: 'server',
  },
  {
    name: 'operationsAllowedHosts',
    env: 'ONCE_OPERATIONS_ALLOWED_HOSTS',
    flag: '--operations-allowed-hosts',
    argument: '<names>',
    kind: 'text',
    defaultText: 'none',
    description:
      'comma-separated host names (`name` or `name:port`) the metrics listener answers besides IP addresses and localhost; any other Host header: 403 HOST_NOT_ALLOWED',
    layer: 'server',
  },
  {
    name: 'operationsConnectionsMax',
    env: 'ONCE_OPERATIONS_CONNECTIONS_MAX',
    flag: '--operations-connections-max',
    argument: '<count>',
    kind: 'integer',
    default: 256,
    min: 1,
    max: 65_535,
    description:
      'open connections on the metrics listener; beyond it a new one is closed at once (the client port keeps its file descriptors)',
    layer: 'server',
  },
  {
    name: 'operationsHeadersTimeoutMs',
    env: 'ONCE_OPERATIONS_HEADERS_TIMEOUT_MS',
    flag: '--operations-headers-timeout-ms',
    argument: '<duration>',
    kind: 'duration',
    default: 10_000,
    defaultText: '`10s`',
    min: 1000,
    max: HOUR_MS,
    unit: 'ms',
    description:
      "a metrics-listener connection that has not sent a request's headers in time is closed (idle keep-alive ones too)",
    layer: 'server',
  },
  {
    name: 'journalFeedWaitersMax',
    env: 'ONCE_JOURNAL_FEED_WAITERS_MAX',
    flag: '--journal-feed-waiters-max',
    argument: '<count>',
    kind: 'integer',
    default: 64,
    min: 1,
    max: 10_000,
    description:
      '/journal requests waiting at once for new entries (`wait_ms`); beyond it: 503 FEED_BUSY with Retry-After',
    layer: 'server',
  },
] as const satisfies readonly SettingSpec[];

/** Maintenance commands run instead of serving. */
const MAINTENANCE_SETTINGS = [
  {
    name: 'verify',
    flag: '--verify',
    kind: 'switch',
    default: false,
    description: 'maintenance: replay the whole journal, compare with the newest snapshot, exit',
    layer: 'server',
  },
  {
    name: 'truncateCorruptTail',
    flag: '--truncate-corrupt-tail',
    kind: 'switch',
    default: false,
    description:
      'maintenance: drop the journal from its first corrupt entry on (needs --yes), exit',
    layer: 'server',
  },
  {
    name: 'yes',
    flag: '--yes',
    kind: 'switch',
    default: false,
    description: 'confirm a destructive maintenance command',
    layer: 'server',
  },
] as const satisfies readonly SettingSpec[];

/**
 * The reference service's own settings: the rows of the settings table that
 * configure this application rather than a once package (its admin user, its
 * TLS files, its logs, its operations listener, its maintenance commands).
 * They are held here, beside the code that reads them, so that `@once/settings`
 * carries only the settings of the packages that own them (gateway, engine,
 * cluster), which any application built on those packages shares. Same rules
 * as the packages' rows: one name across code, variable and flag, qualifier
 * last; `layer: 'server'`.
 */
export const SERVER_SETTINGS = [
  ...ADMIN_SETTINGS,
  ...HTTP_SETTINGS,
  ...TLS_SETTINGS,
  ...LOG_SETTINGS,
  ...OPERATIONS_SETTINGS,
  ...MAINTENANCE_SETTINGS,
] as const satisfies readonly SettingSpec[];

/** A code name of the service's own settings. */
export type ServerSettingName = (typeof SERVER_SETTINGS)[number]['name'];

/**
 * Where the service's own rows stand among the packages' rows: after the
 * row named by the key. Its help and the configuration reference list each
 * setting next to those it goes with (the admin password after the data
 * directory that keeps the user, TLS after the client port's limits, …).
 */
const PLACED_AFTER: Readonly<Record<string, readonly SettingSpec[]>> = {
  dataDir: ADMIN_SETTINGS,
  port: HTTP_SETTINGS,
  unboundTimeoutMs: [...TLS_SETTINGS, ...LOG_SETTINGS, ...OPERATIONS_SETTINGS],
};

/**
 * Every setting the reference service reads, the packages' (`SETTINGS` of
 * `@once/settings`) and its own, in the order of its help and of the
 * configuration reference (docs/operating/configuration.md, generated from
 * this list by `npm run settings:readme`).
 */
export const SERVICE_SETTINGS: readonly SettingSpec[] = [
  ...(SETTINGS as readonly SettingSpec[]).flatMap((spec) => [
    spec,
    ...(PLACED_AFTER[spec.name] ?? []),
  ]),
  ...MAINTENANCE_SETTINGS,
];

const BY_NAME: ReadonlyMap<string, SettingSpec> = new Map(
  SERVER_SETTINGS.map((spec: SettingSpec) => [spec.name, spec]),
);

/** The service's row of `name`. */
export function serverSetting(name: ServerSettingName): SettingSpec {
  return BY_NAME.get(name)!;
}
