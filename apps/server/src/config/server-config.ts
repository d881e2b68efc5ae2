import { Command, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { InvalidSettingError, parseSetting, type SettingSpec } from '@once/settings';
import { SERVICE_SETTINGS, serverSetting } from './server-settings';

/**
 * Every setting of the reference service, under its name in the settings
 * table (`SERVICE_SETTINGS`: the packages' rows of `@once/settings` and the
 * service's own), which also gives its variable, flag and default.
 */
export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly adminPassword: string;
  /** True when neither ONCE_ADMIN_PASSWORD nor ONCE_ADMIN_PASSWORD_FILE was given (the default `admin` is in force). */
  readonly adminPasswordIsDefault: boolean;
  /** The file the admin password was read from, if any. */
  readonly adminPasswordFile: string | undefined;
  readonly clientsMax: number;
  readonly ring: number;
  /** Sessions idle longer than this (journal time) expire; 0 = never. */
  readonly sessionTtlMs: number;
  /** Idempotency-Keys of HTTP requests are remembered this long (journal time). */
  readonly httpKeyRetentionMs: number;
  /** Idempotency-Keys remembered at once. */
  readonly httpKeysMax: number;
  readonly snapshotEveryOps: number;
  /** Keyed-state records kept in memory to read from. */
  readonly keyedCacheEntries: number;
  /** Bytes of keyed-state records kept in memory to read from. */
  readonly keyedCacheBytes: number;
  /** With keyed state, least time between two checkpoints (ms). */
  readonly checkpointIntervalMs: number;
  /** Snapshots' worth of journal history kept; 0 = keep everything. */
  readonly journalRetain: number;
  /** Journal each group's reply checksums (REPLY_CHECK entries). */
  readonly replyChecks: 'on' | 'off';
  /** When new module versions take effect (see the settings table). */
  readonly upgradeFinalization: 'auto' | 'hold';
  /** Replicated states retired on purpose. */
  readonly retiredStates: readonly string[];
  /** Command patterns retired on purpose. */
  readonly retiredCommands: readonly string[];
  readonly frameBytesMax: number;
  readonly connectionsMax: number;
  readonly pendingEntriesMax: number;
  /** Unflushed reply bytes a peer may leave before its connection closes. */
  readonly writeBufferBytesMax: number;
  readonly partialFrameTimeoutMs: number;
  readonly idleUnboundTimeoutMs: number;
  readonly registerFailuresPerAddressPerMinuteMax: number;
  readonly registerFailuresPerConnectionMax: number;
  readonly registerFailuresPerUserPerMinuteMax: number;
  readonly connectionsPerAddressMax: number;
  readonly unboundTimeoutMs: number;
  /** PEM key and certificate (and optional client CA) file paths; TLS when key and cert are set. */
  readonly tlsKeyFile: string | undefined;
  readonly tlsCertFile: string | undefined;
  readonly tlsCaFile: string | undefined;
  /** The NATS servers of the cluster; set, the node runs in cluster mode. */
  readonly natsServers: readonly string[] | undefined;
  /** How long the first connection to NATS may take, ms. */
  readonly natsConnectTimeoutMs: number;
  /** NATS authentication and TLS (see the settings table); files are read by `clusterOptionsOf`. */
  readonly natsUser: string | undefined;
  readonly natsPassword: string | undefined;
  readonly natsPasswordFile: string | undefined;
  readonly natsToken: string | undefined;
  readonly natsTokenFile: string | undefined;
  readonly natsNkeySeedFile: string | undefined;
  readonly natsCredsFile: string | undefined;
  readonly natsTlsCaFile: string | undefined;
  readonly natsTlsCertFile: string | undefined;
  readonly natsTlsKeyFile: string | undefined;
  readonly natsTlsServerName: string | undefined;
  readonly clusterName: string;
  /** The cluster key file; required in cluster mode (checked as the node opens: `CLUSTER_KEY_MISSING`). */
  readonly clusterKeyFile: string | undefined;
  /** Stream sequence through which messages may carry no MAC (a cluster upgraded to keys). */
  readonly clusterUnsignedThroughSeq: number;
  /** This node's id in the cluster; required when `natsServers` is set. */
  readonly nodeId: string | undefined;
  /** `host:port` clients should use to reach this node. */
  readonly advertise: string | undefined;
  readonly clusterReplicas: number;
  /** Port of the ledger's HTTP API on `host`; undefined: no HTTP listener. */
  readonly httpPort: number | undefined;
  /** HTTP port of metrics and health; undefined: no listener. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** Serve the decoded journal at `/journal` on the metrics listener. */
  readonly journalFeed: 'off' | 'on';
  /** File of the operations listener's credential; required with the journal feed on. */
  readonly operationsTokenFile: string | undefined;
  /** Which routes need the credential: every one, or `/journal` only. */
  readonly operationsAuthScope: 'all' | 'journal';
  /** PEM key and certificate of the operations listener; HTTPS when both are set. */
  readonly operationsTlsKeyFile: string | undefined;
  readonly operationsTlsCertFile: string | undefined;
  /** Comma-separated Host names the operations listener answers besides IPs and localhost. */
  readonly operationsAllowedHosts: string | undefined;
  readonly operationsConnectionsMax: number;
  readonly operationsHeadersTimeoutMs: number;
  readonly journalFeedWaitersMax: number;
  readonly logFormat: 'text' | 'json';
  readonly logLevel: LogLevelName;
  /** Maintenance instead of serving: verify the journal by a full replay. */
  readonly verify: boolean;
  /** Maintenance instead of serving: cut the journal at its first corrupt entry (with `yes`). */
  readonly truncateCorruptTail: boolean;
  readonly yes: boolean;
  /** One line per old (deprecated) variable or flag that was given, naming the new one. */
  readonly deprecations: readonly string[];
}

export type LogLevelName = 'error' | 'warn' | 'log' | 'debug' | 'verbose';

/** A setting that does not validate; the message names it and says what it takes. */
export class ConfigError extends Error {
  readonly code: string = 'INVALID_CONFIG';
}

/**
 * The service would listen beyond this host with the well-known default
 * admin password. Like Redis's protected mode, it refuses to: anyone who
 * reaches the port could log in as the administrator.
 */
export class AdminPasswordRequiredError extends ConfigError {
  override readonly code = 'ADMIN_PASSWORD_REQUIRED';

  constructor(host: string) {
    super(
      `ONCE_HOST ${host} is not a loopback address and no admin password is set: set ONCE_ADMIN_PASSWORD_FILE (--admin-password-file) or ONCE_ADMIN_PASSWORD, or listen on 127.0.0.1 (ADMIN_PASSWORD_REQUIRED)`,
    );
  }
}

/** Whether `host` can only be reached from this machine: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) {
    if (bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
    return mapped !== null && mapped[1].startsWith('127.');
  }
  return false;
}

/** The admin password held in `file`: its text, one trailing newline dropped. */
function readAdminPasswordFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`cannot read ONCE_ADMIN_PASSWORD_FILE ${file}: ${reason}`);
  }
  return text.replace(/\r?\n$/, '');
}

/** The commander option of a setting, generated from its row of the table. */
function optionOf(spec: SettingSpec): Option {
  const option = new Option(
    spec.argument ? `${spec.flag} ${spec.argument}` : spec.flag,
    spec.description,
  );
  if (spec.env !== undefined) option.env(spec.env);
  // The admin password's default is applied after parsing: the service warns when it is in force.
  if (spec.default !== undefined && spec.kind !== 'switch' && spec.kind !== 'secret') {
    option.default(spec.default);
  }
  return withParser(option, spec);
}

/** The hidden option of a setting's old flag and variable, parsed like the new one, no default. */
function aliasOptionOf(spec: SettingSpec): Option | undefined {
  const { aliases } = spec;
  if (aliases?.flag === undefined || spec.argument === undefined) return undefined;
  const option = new Option(`${aliases.flag} ${spec.argument}`).hideHelp();
  if (aliases.env !== undefined) option.env(aliases.env);
  return withParser(option, spec);
}

function withParser(option: Option, spec: SettingSpec): Option {
  if (spec.kind === 'switch') return option;
  return option.argParser((value: string) => {
    try {
      return parseSetting(spec, value);
    } catch (error) {
      if (error instanceof InvalidSettingError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  });
}

function options(): Option[] {
  return SERVICE_SETTINGS.flatMap((spec: SettingSpec) => {
    const alias = aliasOptionOf(spec);
    return alias ? [optionOf(spec), alias] : [optionOf(spec)];
  });
}

/**
 * Where a value came from, best first: flags beat variables, and within
 * each the new name beats the old one. The default comes last.
 */
const SOURCE_RANK: Readonly<Record<string, number>> = { cli: 0, env: 2, default: 4 };

/**
 * Reads the settings from flags, then environment variables, then defaults,
 * and validates them. Throws ConfigError with a message fit for an operator.
 */
export function loadServerConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ServerConfig {
  const program = new Command('once-server')
    .description('once: exactly-once requests over an embedded LevelDB journal (reference service)')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined })
    .allowExcessArguments(false);
  for (const option of options()) program.addOption(option);
  const saved = process.env;
  process.env = { ...env };
  try {
    program.parse([...argv]);
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code === 'commander.helpDisplayed' || code === 'commander.version') throw error;
    throw new ConfigError((message ?? String(error)).replace(/^error: /, ''));
  } finally {
    process.env = saved;
  }
  const values: Record<string, unknown> = {};
  const deprecations: string[] = [];
  for (const spec of SERVICE_SETTINGS) {
    values[spec.name] = chooseSource(program, spec, deprecations);
  }
  const adminPasswordFile = values.adminPasswordFile as string | undefined;
  if (adminPasswordFile !== undefined && values.adminPassword !== undefined) {
    throw new ConfigError(
      'give the admin password once: ONCE_ADMIN_PASSWORD or ONCE_ADMIN_PASSWORD_FILE, not both',
    );
  }
  const adminPassword =
    adminPasswordFile !== undefined
      ? readAdminPasswordFile(adminPasswordFile)
      : (values.adminPassword as string | undefined);
  if ((values.tlsKeyFile === undefined) !== (values.tlsCertFile === undefined)) {
    throw new ConfigError(
      'TLS needs both ONCE_TLS_KEY_FILE (--tls-key-file) and ONCE_TLS_CERT_FILE (--tls-cert-file)',
    );
  }
  if (values.tlsCaFile !== undefined && values.tlsKeyFile === undefined) {
    throw new ConfigError(
      'ONCE_TLS_CA_FILE (--tls-ca-file) needs ONCE_TLS_KEY_FILE and ONCE_TLS_CERT_FILE',
    );
  }
  if (
    (values.operationsTlsKeyFile === undefined) !==
    (values.operationsTlsCertFile === undefined)
  ) {
    throw new ConfigError(
      'HTTPS on the metrics listener needs both ONCE_OPERATIONS_TLS_KEY_FILE (--operations-tls-key-file) ' +
        'and ONCE_OPERATIONS_TLS_CERT_FILE (--operations-tls-cert-file)',
    );
  }
  if (values.journalFeed === 'on' && values.operationsTokenFile === undefined) {
    // The feed serves every user's commands: never to whoever reaches the port.
    throw new ConfigError(
      'OPERATIONS_CREDENTIAL_MISSING: the journal feed (ONCE_JOURNAL_FEED=on) needs a credential: ' +
        'ONCE_OPERATIONS_TOKEN_FILE (--operations-token-file) naming a file that holds a token of 16 or more characters',
    );
  }
  if (adminPassword !== undefined && adminPassword.length === 0) {
    throw new ConfigError('admin password must not be empty');
  }
  if (adminPassword === undefined && !isLoopbackHost(values.host as string)) {
    throw new AdminPasswordRequiredError(values.host as string);
  }
  if (values.natsServers !== undefined && values.nodeId === undefined) {
    throw new ConfigError(
      'cluster mode (ONCE_NATS_SERVERS, --nats-servers) needs ONCE_NODE_ID (--node-id): ' +
        'a name for this node, unique in the cluster',
    );
  }
  return {
    ...(values as Omit<
      ServerConfig,
      | 'adminPassword'
      | 'adminPasswordIsDefault'
      | 'deprecations'
      | 'natsServers'
      | 'retiredStates'
      | 'retiredCommands'
    >),
    natsServers: typeof values.natsServers === 'string' ? values.natsServers.split(',') : undefined,
    retiredStates: listOf(values.retiredStates),
    retiredCommands: listOf(values.retiredCommands),
    adminPassword: adminPassword ?? (serverSetting('adminPassword').default as string),
    adminPasswordIsDefault: adminPassword === undefined,
    verify: values.verify === true,
    truncateCorruptTail: values.truncateCorruptTail === true,
    yes: values.yes === true,
    deprecations,
  };
}

/**
 * The value of `spec` from the best source among its new and old names (see
 * {@link SOURCE_RANK}); notes each old name that was given in `deprecations`.
 */
function chooseSource(program: Command, spec: SettingSpec, deprecations: string[]): unknown {
  const candidates = [{ attribute: spec.name, old: false }];
  const oldFlag = spec.aliases?.flag;
  if (oldFlag !== undefined && spec.argument !== undefined) {
    candidates.push({ attribute: attributeOf(oldFlag), old: true });
  }
  let best: { attribute: string; rank: number } | undefined;
  for (const { attribute, old } of candidates) {
    const source = program.getOptionValueSource(attribute);
    if (source === undefined || program.getOptionValue(attribute) === undefined) continue;
    const rank = (SOURCE_RANK[source] ?? SOURCE_RANK.default) + (old ? 1 : 0);
    if (best === undefined || rank < best.rank) best = { attribute, rank };
  }
  for (const { attribute, old } of candidates) {
    if (!old) continue;
    const source = program.getOptionValueSource(attribute);
    if (source !== 'cli' && source !== 'env') continue;
    const [given, current] =
      source === 'cli' ? [spec.aliases?.flag, spec.flag] : [spec.aliases?.env, spec.env];
    deprecations.push(
      best?.attribute === attribute
        ? `${given} is deprecated: use ${current}`
        : `${given} is deprecated and ignored: the value of ${describeSource(program, spec)} wins`,
    );
  }
  return best === undefined ? undefined : program.getOptionValue(best.attribute);
}

function describeSource(program: Command, spec: SettingSpec): string {
  return program.getOptionValueSource(spec.name) === 'cli' ? spec.flag : (spec.env ?? spec.flag);
}

/** A comma-separated setting's items, trimmed, empty ones dropped. */
export function listOf(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** Commander's attribute of a flag: `--max-frame` → `maxFrame`. */
function attributeOf(flag: string): string {
  return flag.replace(/^--/, '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The help text (flags, variables, defaults). */
export function serverConfigHelp(): string {
  const program = new Command('once-server');
  for (const option of options()) program.addOption(option);
  return program.helpInformation();
}
