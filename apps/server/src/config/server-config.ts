import { Command, InvalidArgumentError, Option } from 'commander';

/** Every setting of the reference service. Each has an environment variable and an equivalent flag. */
export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly adminPassword: string;
  /** True when ONCE_ADMIN_PASSWORD was not given (the default `admin` is in force). */
  readonly adminPasswordIsDefault: boolean;
  readonly clientsMax: number;
  readonly ring: number;
  readonly maxFrameBytes: number;
  readonly snapshotEvery: number;
  readonly maxConnections: number;
  readonly maxPendingEntries: number;
  /** Unflushed reply bytes a peer may leave before its connection closes. */
  readonly maxWriteBufferBytes: number;
  /** Sessions idle longer than this (journal time) expire; 0 = never. */
  readonly sessionTtlMs: number;
  readonly partialFrameTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly registerFailuresPerMinute: number;
  readonly registerFailuresPerConnection: number;
  /** PEM key and certificate (and optional client CA) file paths; TLS when key and cert are set. */
  readonly tlsKeyFile: string | undefined;
  readonly tlsCertFile: string | undefined;
  readonly tlsCaFile: string | undefined;
  /** Maintenance instead of serving: verify the journal by a full replay. */
  readonly verify: boolean;
  /** Maintenance instead of serving: cut the journal at its first corrupt entry (with `yes`). */
  readonly truncateCorruptTail: boolean;
  readonly yes: boolean;
  readonly logFormat: 'text' | 'json';
  readonly logLevel: LogLevelName;
}

export type LogLevelName = 'error' | 'warn' | 'log' | 'debug' | 'verbose';

/** A setting that does not validate; the message names it and says what it takes. */
export class ConfigError extends Error {
  readonly code = 'INVALID_CONFIG';
}

const DEFAULT_ADMIN_PASSWORD = 'admin';

/** Settings, their flag, variable, default and check, in one place (the README's table mirrors it). */
function options(): Option[] {
  return [
    new Option('--host <address>', 'interface to listen on').env('ONCE_HOST').default('127.0.0.1'),
    new Option('--port <port>', 'TCP port (0: any free port)')
      .env('ONCE_PORT')
      .default(7700)
      .argParser(integer('port', 0, 65_535)),
    new Option('--data-dir <path>', 'LevelDB data directory, one process at a time')
      .env('ONCE_DATA_DIR')
      .default('./data'),
    new Option(
      '--admin-password <password>',
      'password of the admin user created in a new data directory (visible to ps: prefer the variable)',
    ).env('ONCE_ADMIN_PASSWORD'),
    new Option('--clients-max <count>', 'client table capacity (sessions)')
      .env('ONCE_CLIENTS_MAX')
      .default(8192)
      .argParser(integer('clients-max', 1, 10_000_000)),
    new Option('--ring <count>', 'replies cached per session and requests in flight per session')
      .env('ONCE_RING')
      .default(8)
      .argParser(integer('ring', 1, 1024)),
    new Option('--max-frame <bytes>', 'largest frame accepted (bytes; KiB/MiB suffixes allowed)')
      .env('ONCE_MAX_FRAME')
      .default(1024 * 1024)
      .argParser(bytes('max-frame', 128, 2 ** 32 - 1)),
    new Option(
      '--snapshot-every <ops>',
      'take a snapshot every this many ops (0: only at graceful stop)',
    )
      .env('ONCE_SNAPSHOT_EVERY')
      .default(100_000)
      .argParser(integer('snapshot-every', 0, Number.MAX_SAFE_INTEGER)),
    new Option('--max-connections <count>', 'open connections at once')
      .env('ONCE_MAX_CONNECTIONS')
      .default(10_000)
      .argParser(integer('max-connections', 1, 1_000_000)),
    new Option(
      '--max-write-buffer <bytes>',
      'reply bytes a peer may leave unread before its connection closes (bytes; KiB/MiB suffixes allowed)',
    )
      .env('ONCE_MAX_WRITE_BUFFER')
      .default(64 * 1024 * 1024)
      .argParser(bytes('max-write-buffer', 1024, 2 ** 40)),
    new Option(
      '--max-pending <entries>',
      'journal entries admitted but not yet durable before reads pause',
    )
      .env('ONCE_MAX_PENDING')
      .default(65_536)
      .argParser(integer('max-pending', 1, 10_000_000)),
    new Option(
      '--session-ttl <duration>',
      'expire sessions idle this long by journal time (ms, or with s/m/h/d; 0: never)',
    )
      .env('ONCE_SESSION_TTL')
      .default(0)
      .argParser(duration('session-ttl')),
    new Option(
      '--partial-frame-timeout <duration>',
      'a frame begun but not finished within this: BAD_FRAME and close',
    )
      .env('ONCE_PARTIAL_FRAME_TIMEOUT')
      .default(10_000)
      .argParser(duration('partial-frame-timeout', 1)),
    new Option(
      '--idle-timeout <duration>',
      'close a connection that holds no session and sends nothing this long',
    )
      .env('ONCE_IDLE_TIMEOUT')
      .default(60_000)
      .argParser(duration('idle-timeout', 1)),
    new Option(
      '--register-failures-per-minute <count>',
      'failed REGISTERs per address per minute before REGISTER is refused unchecked',
    )
      .env('ONCE_REGISTER_FAILURES_PER_MINUTE')
      .default(30)
      .argParser(integer('register-failures-per-minute', 1, 1_000_000)),
    new Option(
      '--register-failures-per-connection <count>',
      'failed REGISTERs before the connection is closed',
    )
      .env('ONCE_REGISTER_FAILURES_PER_CONNECTION')
      .default(5)
      .argParser(integer('register-failures-per-connection', 1, 1_000_000)),
    new Option('--tls-key <file>', 'PEM private key: serve TLS (with --tls-cert)').env(
      'ONCE_TLS_KEY',
    ),
    new Option('--tls-cert <file>', 'PEM certificate chain: serve TLS (with --tls-key)').env(
      'ONCE_TLS_CERT',
    ),
    new Option('--tls-ca <file>', 'PEM CA bundle: require client certificates signed by it').env(
      'ONCE_TLS_CA',
    ),
    new Option(
      '--verify',
      'maintenance: replay the whole journal, compare with the newest snapshot, exit',
    ),
    new Option(
      '--truncate-corrupt-tail',
      'maintenance: drop the journal from its first corrupt entry on (needs --yes), exit',
    ),
    new Option('--yes', 'confirm a destructive maintenance command'),
    new Option('--log-format <format>', 'log line format')
      .env('ONCE_LOG_FORMAT')
      .default('text')
      .choices(['text', 'json']),
    new Option('--log-level <level>', 'least severe level logged')
      .env('ONCE_LOG_LEVEL')
      .default('log')
      .choices(['error', 'warn', 'log', 'debug', 'verbose']),
  ];
}

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
  const raw = program.opts<Record<string, unknown>>();
  const adminPassword = raw.adminPassword as string | undefined;
  if ((raw.tlsKey === undefined) !== (raw.tlsCert === undefined)) {
    throw new ConfigError('TLS needs both ONCE_TLS_KEY (--tls-key) and ONCE_TLS_CERT (--tls-cert)');
  }
  if (raw.tlsCa !== undefined && raw.tlsKey === undefined) {
    throw new ConfigError('ONCE_TLS_CA (--tls-ca) needs ONCE_TLS_KEY and ONCE_TLS_CERT');
  }
  if (adminPassword !== undefined && adminPassword.length === 0) {
    throw new ConfigError('admin password must not be empty');
  }
  return {
    host: raw.host as string,
    port: raw.port as number,
    dataDir: raw.dataDir as string,
    adminPassword: adminPassword ?? DEFAULT_ADMIN_PASSWORD,
    adminPasswordIsDefault: adminPassword === undefined,
    clientsMax: raw.clientsMax as number,
    ring: raw.ring as number,
    maxFrameBytes: raw.maxFrame as number,
    snapshotEvery: raw.snapshotEvery as number,
    maxConnections: raw.maxConnections as number,
    maxPendingEntries: raw.maxPending as number,
    maxWriteBufferBytes: raw.maxWriteBuffer as number,
    sessionTtlMs: raw.sessionTtl as number,
    partialFrameTimeoutMs: raw.partialFrameTimeout as number,
    idleTimeoutMs: raw.idleTimeout as number,
    registerFailuresPerMinute: raw.registerFailuresPerMinute as number,
    registerFailuresPerConnection: raw.registerFailuresPerConnection as number,
    tlsKeyFile: raw.tlsKey as string | undefined,
    tlsCertFile: raw.tlsCert as string | undefined,
    tlsCaFile: raw.tlsCa as string | undefined,
    verify: raw.verify === true,
    truncateCorruptTail: raw.truncateCorruptTail === true,
    yes: raw.yes === true,
    logFormat: raw.logFormat as ServerConfig['logFormat'],
    logLevel: raw.logLevel as LogLevelName,
  };
}

/** The help text (flags, variables, defaults). */
export function serverConfigHelp(): string {
  const program = new Command('once-server');
  for (const option of options()) program.addOption(option);
  return program.helpInformation();
}

function integer(name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(
        `${name} must be an integer from ${min} to ${max}, got "${value}"`,
      );
    }
    return parsed;
  };
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kib: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1024 ** 2,
};

function bytes(name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const match = /^(\d+)\s*([a-z]*)$/i.exec(value.trim());
    const unit = match ? UNITS[match[2].toLowerCase()] : undefined;
    const parsed = match && unit !== undefined ? Number(match[1]) * unit : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(
        `${name} must be a size from ${min} to ${max} bytes (e.g. 1048576 or 1MiB), got "${value}"`,
      );
    }
    return parsed;
  };
}

const DURATION_UNITS: Record<string, number> = {
  '': 1,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

function duration(name: string, min = 0): (value: string) => number {
  return (value) => {
    const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(value.trim());
    const parsed = match ? Number(match[1]) * DURATION_UNITS[(match[2] ?? '').toLowerCase()] : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min) {
      throw new InvalidArgumentError(
        `${name} must be a duration such as 0, 90000, 90s, 30m or 24h, got "${value}"`,
      );
    }
    return parsed;
  };
}
