import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterOptionsOf } from './cluster-mode';
import {
  AdminPasswordRequiredError,
  ConfigError,
  loadServerConfig,
  type ServerConfig,
  serverConfigHelp,
} from './server-config';

const argv = (...flags: string[]) => ['node', 'main.js', ...flags];

describe('server settings', () => {
  it('has the documented defaults', () => {
    expect(loadServerConfig(argv(), {})).toEqual({
      host: '127.0.0.1',
      port: 7700,
      dataDir: './data',
      adminPassword: 'admin',
      adminPasswordIsDefault: true,
      adminPasswordFile: undefined,
      clientsMax: 8192,
      ring: 8,
      frameBytesMax: 1024 * 1024,
      snapshotEveryOps: 100_000,
      keyedCacheEntries: 1_048_576,
      keyedCacheBytes: 64 * 1024 * 1024,
      checkpointIntervalMs: 100,
      journalRetain: 0,
      replyChecks: 'on',
      upgradeFinalization: 'auto',
      retiredStates: [],
      retiredCommands: [],
      connectionsMax: 10_000,
      pendingEntriesMax: 65_536,
      writeBufferBytesMax: 64 * 1024 * 1024,
      sessionTtlMs: 0,
      httpKeyRetentionMs: 86_400_000,
      httpKeysMax: 1_000_000,
      partialFrameTimeoutMs: 10_000,
      idleUnboundTimeoutMs: 60_000,
      registerFailuresPerAddressPerMinuteMax: 30,
      registerFailuresPerConnectionMax: 5,
      registerFailuresPerUserPerMinuteMax: 10,
      connectionsPerAddressMax: 4096,
      unboundTimeoutMs: 30_000,
      tlsKeyFile: undefined,
      tlsCertFile: undefined,
      tlsCaFile: undefined,
      natsServers: undefined,
      natsConnectTimeoutMs: 20_000,
      natsUser: undefined,
      natsPassword: undefined,
      natsPasswordFile: undefined,
      natsToken: undefined,
      natsTokenFile: undefined,
      natsNkeySeedFile: undefined,
      natsCredsFile: undefined,
      natsTlsCaFile: undefined,
      natsTlsCertFile: undefined,
      natsTlsKeyFile: undefined,
      natsTlsServerName: undefined,
      clusterName: 'once',
      clusterKeyFile: undefined,
      clusterUnsignedThroughSeq: 0,
      nodeId: undefined,
      advertise: undefined,
      clusterReplicas: 3,
      verify: false,
      truncateCorruptTail: false,
      yes: false,
      logFormat: 'text',
      logLevel: 'log',
      httpPort: undefined,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      journalFeed: 'off',
      operationsTokenFile: undefined,
      operationsAuthScope: 'all',
      operationsTlsKeyFile: undefined,
      operationsTlsCertFile: undefined,
      operationsAllowedHosts: undefined,
      operationsConnectionsMax: 256,
      operationsHeadersTimeoutMs: 10_000,
      journalFeedWaitersMax: 64,
      deprecations: [],
    });
  });

  it('reads ONCE_* variables, and flags win over them', () => {
    const env = {
      ONCE_PORT: '7800',
      ONCE_DATA_DIR: '/tmp/x',
      ONCE_RING: '4',
      ONCE_FRAME_BYTES_MAX: '64KiB',
      ONCE_WRITE_BUFFER_BYTES_MAX: '256KiB',
      ONCE_SESSION_TTL_MS: '30m',
      ONCE_ADMIN_PASSWORD: 's3cret',
    };
    const config = loadServerConfig(argv('--port', '7900', '--clients-max', '2'), env);
    expect(config).toMatchObject({
      port: 7900,
      dataDir: '/tmp/x',
      ring: 4,
      clientsMax: 2,
      frameBytesMax: 64 * 1024,
      writeBufferBytesMax: 256 * 1024,
      sessionTtlMs: 30 * 60_000,
      adminPassword: 's3cret',
      adminPasswordIsDefault: false,
    });
  });

  it.each([
    [{ ONCE_PORT: '70000' }, /port must be an integer from 0 to 65535/],
    [{ ONCE_PORT: 'abc' }, /port/],
    [{ ONCE_RING: '0' }, /ring must be an integer from 1 to 1024/],
    [{ ONCE_CLIENTS_MAX: '-3' }, /clients-max/],
    [{ ONCE_FRAME_BYTES_MAX: '10' }, /frame-bytes-max must be a size from 128/],
    [{ ONCE_FRAME_BYTES_MAX: '1GiB' }, /frame-bytes-max/],
    [{ ONCE_WRITE_BUFFER_BYTES_MAX: '1000' }, /write-buffer-bytes-max must be a size from 1024/],
    [{ ONCE_SESSION_TTL_MS: '5 weeks' }, /session-ttl-ms must be a duration/],
    [{ ONCE_LOG_FORMAT: 'xml' }, /log-format/],
    [{ ONCE_ADMIN_PASSWORD: '' }, /admin password must not be empty/],
    [{ ONCE_TLS_KEY_FILE: '/k.pem' }, /TLS needs both/],
    [{ ONCE_IDLE_UNBOUND_TIMEOUT_MS: '0' }, /idle-unbound-timeout-ms/],
    [{ ONCE_CONNECTIONS_MAX: '0' }, /connections-max must be an integer from 1 to 1000000/],
    [{ ONCE_PENDING_ENTRIES_MAX: 'many' }, /pending-entries-max must be an integer/],
    [
      { ONCE_REGISTER_FAILURES_PER_ADDRESS_PER_MINUTE_MAX: '0' },
      /register-failures-per-address-per-minute-max must be an integer from 1/,
    ],
    [{ ONCE_SNAPSHOT_EVERY_OPS: '-1' }, /snapshot-every-ops must be an integer from 0/],
  ])('refuses %j with a message naming the setting', (env, message) => {
    expect(() => loadServerConfig(argv(), env)).toThrow(ConfigError);
    expect(() => loadServerConfig(argv(), env)).toThrow(message);
  });

  describe('the admin password on a host reachable from elsewhere', () => {
    it.each(['0.0.0.0', '::', '10.1.2.3', 'db.example.org'])(
      'refuses to start on %s without an admin password (ADMIN_PASSWORD_REQUIRED)',
      (host) => {
        let thrown: unknown;
        try {
          loadServerConfig(argv('--host', host), {});
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(AdminPasswordRequiredError);
        expect(thrown).toMatchObject({ code: 'ADMIN_PASSWORD_REQUIRED' });
        expect((thrown as Error).message).toContain('ONCE_ADMIN_PASSWORD_FILE');
      },
    );

    it.each(['127.0.0.1', '127.9.9.9', '::1', '[::1]', 'localhost'])(
      'keeps the warned default on the loopback host %s',
      (host) => {
        expect(loadServerConfig(argv('--host', host), {})).toMatchObject({
          adminPassword: 'admin',
          adminPasswordIsDefault: true,
        });
      },
    );

    it('starts on any host with the password from ONCE_ADMIN_PASSWORD_FILE, newline dropped', () => {
      const dir = mkdtempSync(join(tmpdir(), 'once-admin-'));
      const file = join(dir, 'admin-password');
      writeFileSync(file, 'from-a-file\n');
      try {
        expect(
          loadServerConfig(argv('--host', '0.0.0.0'), { ONCE_ADMIN_PASSWORD_FILE: file }),
        ).toMatchObject({ adminPassword: 'from-a-file', adminPasswordIsDefault: false });
        expect(() =>
          loadServerConfig(argv(), { ONCE_ADMIN_PASSWORD_FILE: join(dir, 'missing') }),
        ).toThrow(/cannot read ONCE_ADMIN_PASSWORD_FILE .*missing: ENOENT/);
        expect(() =>
          loadServerConfig(argv(), { ONCE_ADMIN_PASSWORD_FILE: file, ONCE_ADMIN_PASSWORD: 'x' }),
        ).toThrow(/not both/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('starts on any host with ONCE_ADMIN_PASSWORD', () => {
      expect(
        loadServerConfig(argv('--host', '0.0.0.0'), { ONCE_ADMIN_PASSWORD: 's3cret' }).host,
      ).toBe('0.0.0.0');
    });
  });

  it('names the setting, its source and what it takes when a flag is invalid', () => {
    expect(() => loadServerConfig(argv('--partial-frame-timeout-ms', 'soon'), {})).toThrow(
      /option '--partial-frame-timeout-ms <duration>' argument 'soon' is invalid\. partial-frame-timeout-ms must be a duration from 1 to 86400000 ms/,
    );
    expect(() => loadServerConfig(argv(), { ONCE_RING: '2000' })).toThrow(
      /value '2000' from env 'ONCE_RING' is invalid\. ring must be an integer from 1 to 1024/,
    );
  });

  it('reads the metrics listener settings, and refuses a port out of range', () => {
    expect(
      loadServerConfig(argv('--metrics-host', '0.0.0.0'), { ONCE_METRICS_PORT: '9464' }),
    ).toMatchObject({ metricsPort: 9464, metricsHost: '0.0.0.0' });
    expect(() => loadServerConfig(argv(), { ONCE_METRICS_PORT: '70000' })).toThrow(
      /ONCE_METRICS_PORT.*metrics-port must be an integer from 0 to 65535/,
    );
  });

  it('reads the journal feed switch, off by default, and refuses anything but on or off', () => {
    expect(
      loadServerConfig(argv(), {
        ONCE_JOURNAL_FEED: 'on',
        ONCE_OPERATIONS_TOKEN_FILE: '/run/secrets/ops',
      }),
    ).toMatchObject({ journalFeed: 'on', operationsTokenFile: '/run/secrets/ops' });
    expect(() => loadServerConfig(argv('--journal-feed', 'yes'), {})).toThrow(
      /journal-feed must be one of off, on/,
    );
  });

  it('refuses the journal feed without a credential for it', () => {
    expect(() => loadServerConfig(argv(), { ONCE_JOURNAL_FEED: 'on' })).toThrow(
      /OPERATIONS_CREDENTIAL_MISSING: .*ONCE_OPERATIONS_TOKEN_FILE/,
    );
  });

  it('refuses HTTPS on the metrics listener with a key and no certificate', () => {
    expect(() => loadServerConfig(argv('--operations-tls-key-file', '/k.pem'), {})).toThrow(
      /ONCE_OPERATIONS_TLS_CERT_FILE/,
    );
  });

  describe('old names (deprecated aliases)', () => {
    const OLD_AND_NEW: Array<[Record<string, string>, Partial<ServerConfig>]> = [
      [{ ONCE_MAX_FRAME: '64KiB' }, { frameBytesMax: 64 * 1024 }],
      [{ ONCE_MAX_CONNECTIONS: '12' }, { connectionsMax: 12 }],
      [{ ONCE_MAX_PENDING: '13' }, { pendingEntriesMax: 13 }],
      [{ ONCE_MAX_WRITE_BUFFER: '2KiB' }, { writeBufferBytesMax: 2048 }],
      [{ ONCE_SNAPSHOT_EVERY: '14' }, { snapshotEveryOps: 14 }],
      [{ ONCE_SESSION_TTL: '30m' }, { sessionTtlMs: 30 * 60_000 }],
      [{ ONCE_PARTIAL_FRAME_TIMEOUT: '2s' }, { partialFrameTimeoutMs: 2000 }],
      [{ ONCE_IDLE_TIMEOUT: '3s' }, { idleUnboundTimeoutMs: 3000 }],
      [{ ONCE_REGISTER_FAILURES_PER_MINUTE: '15' }, { registerFailuresPerAddressPerMinuteMax: 15 }],
      [{ ONCE_REGISTER_FAILURES_PER_CONNECTION: '16' }, { registerFailuresPerConnectionMax: 16 }],
      [
        { ONCE_TLS_KEY: '/k.pem', ONCE_TLS_CERT: '/c.pem', ONCE_TLS_CA: '/ca.pem' },
        { tlsKeyFile: '/k.pem', tlsCertFile: '/c.pem', tlsCaFile: '/ca.pem' },
      ],
    ];

    it.each(OLD_AND_NEW)('still reads the old variable %j, with a deprecation', (env, expected) => {
      const config = loadServerConfig(argv(), env);
      expect(config).toMatchObject(expected);
      expect(config.deprecations).toHaveLength(Object.keys(env).length);
      Object.keys(env).forEach((name, index) =>
        expect(config.deprecations[index]).toMatch(new RegExp(`^${name} is deprecated: use ONCE_`)),
      );
    });

    it('still takes the old flags', () => {
      const config = loadServerConfig(
        argv('--max-frame', '2KiB', '--idle-timeout', '5s', '--register-failures-per-minute', '7'),
        {},
      );
      expect(config).toMatchObject({
        frameBytesMax: 2048,
        idleUnboundTimeoutMs: 5000,
        registerFailuresPerAddressPerMinuteMax: 7,
      });
      expect(config.deprecations).toEqual([
        '--max-frame is deprecated: use --frame-bytes-max',
        '--idle-timeout is deprecated: use --idle-unbound-timeout-ms',
        '--register-failures-per-minute is deprecated: use --register-failures-per-address-per-minute-max',
      ]);
    });

    it('lets the new name win over the old one in the same place, and flags win over variables', () => {
      const both = loadServerConfig(argv('--max-pending', '1', '--pending-entries-max', '2'), {
        ONCE_MAX_CONNECTIONS: '3',
        ONCE_CONNECTIONS_MAX: '4',
      });
      expect(both).toMatchObject({ pendingEntriesMax: 2, connectionsMax: 4 });
      expect(both.deprecations).toEqual([
        'ONCE_MAX_CONNECTIONS is deprecated and ignored: the value of ONCE_CONNECTIONS_MAX wins',
        '--max-pending is deprecated and ignored: the value of --pending-entries-max wins',
      ]);
      // An old flag still beats a new variable: where a value comes from decides first.
      const flagFirst = loadServerConfig(argv('--max-frame', '1KiB'), {
        ONCE_FRAME_BYTES_MAX: '2KiB',
      });
      expect(flagFirst.frameBytesMax).toBe(1024);
    });

    it('refuses an invalid value under an old name, naming both names', () => {
      expect(() => loadServerConfig(argv(), { ONCE_MAX_FRAME: '10' })).toThrow(
        /'--max-frame <bytes>' value '10' from env 'ONCE_MAX_FRAME' is invalid\. frame-bytes-max must be a size from 128/,
      );
      expect(() => loadServerConfig(argv(), { ONCE_IDLE_TIMEOUT: '0' })).toThrow(/idle-timeout/);
    });

    it('hides the old flags from the help', () => {
      const help = serverConfigHelp();
      expect(help).toContain('--frame-bytes-max <bytes>');
      expect(help).toContain('ONCE_FRAME_BYTES_MAX');
      expect(help).not.toContain('--max-frame');
    });
  });

  describe('cluster mode', () => {
    it('reads the NATS servers as a list, with the node id, name, address and replicas', () => {
      const config = loadServerConfig(argv('--cluster-replicas', '5'), {
        ONCE_NATS_SERVERS: 'nats://n1:4222, nats://n2:4222',
        ONCE_NODE_ID: 'node-1',
        ONCE_CLUSTER_NAME: 'orders',
        ONCE_ADVERTISE: 'node1.example.com:7700',
      });
      expect(config).toMatchObject({
        natsServers: ['nats://n1:4222', 'nats://n2:4222'],
        nodeId: 'node-1',
        clusterName: 'orders',
        advertise: 'node1.example.com:7700',
        clusterReplicas: 5,
      });
    });

    it('refuses ONCE_NATS_SERVERS without ONCE_NODE_ID, naming both', () => {
      const env = { ONCE_NATS_SERVERS: 'nats://n1:4222' };
      expect(() => loadServerConfig(argv(), env)).toThrow(ConfigError);
      expect(() => loadServerConfig(argv(), env)).toThrow(
        /cluster mode \(ONCE_NATS_SERVERS, --nats-servers\) needs ONCE_NODE_ID \(--node-id\)/,
      );
      expect(() => loadServerConfig(argv('--nats-servers', 'nats://n1:4222'), {})).toThrow(
        /needs ONCE_NODE_ID/,
      );
      expect(loadServerConfig(argv('--node-id', 'n1'), env).nodeId).toBe('n1');
    });

    it.each([
      [{ ONCE_NATS_SERVERS: 'n1:4222', ONCE_NODE_ID: 'n1' }, /nats-servers must be/],
      [{ ONCE_NODE_ID: 'node one' }, /node-id must be 1 to 64 letters/],
      [{ ONCE_CLUSTER_NAME: 'a.b' }, /cluster-name must be 1 to 64 letters/],
      [{ ONCE_ADVERTISE: 'node1' }, /advertise must be host:port/],
      [{ ONCE_CLUSTER_REPLICAS: '7' }, /cluster-replicas must be an integer from 1 to 5/],
    ])('refuses %j with a message naming the setting', (env, message) => {
      expect(() => loadServerConfig(argv(), env)).toThrow(message);
    });

    it('runs a cluster node when ONCE_NATS_SERVERS is set, and a single node otherwise', () => {
      const cluster = loadServerConfig(argv(), {
        ONCE_NATS_SERVERS: 'nats://n1:4222,nats://n2:4222',
        ONCE_NODE_ID: 'n1',
        ONCE_ADVERTISE: '10.0.0.1:7700',
        ONCE_CLUSTER_KEY_FILE: '/run/secrets/cluster.key',
        ONCE_CLUSTER_UNSIGNED_THROUGH_SEQ: '812',
      });
      expect(clusterOptionsOf(cluster)).toEqual({
        natsServers: ['nats://n1:4222', 'nats://n2:4222'],
        natsSecurity: {},
        natsConnectTimeoutMs: 20_000,
        nodeId: 'n1',
        clusterName: 'once',
        clusterKeyFile: '/run/secrets/cluster.key',
        unsignedThroughSeq: 812,
        advertise: '10.0.0.1:7700',
        replicas: 3,
      });
      expect(clusterOptionsOf(loadServerConfig(argv(), {}))).toBeUndefined();
    });
  });

  describe('NATS security', () => {
    const cluster = { ONCE_NATS_SERVERS: 'tls://n1:4222', ONCE_NODE_ID: 'n1' };

    it('reads the secret files and maps the settings to the node', () => {
      const dir = mkdtempSync(join(tmpdir(), 'once-server-config-'));
      const passwordFile = join(dir, 'password');
      writeFileSync(passwordFile, 'pw-from-file\n');
      const config = loadServerConfig(argv('--nats-password-file', passwordFile), {
        ...cluster,
        ONCE_NATS_USER: 'once',
        ONCE_NATS_TLS_SERVER_NAME: 'nats.example',
        ONCE_NATS_CONNECT_TIMEOUT_MS: '5s',
      });
      expect(clusterOptionsOf(config)).toMatchObject({
        natsServers: ['tls://n1:4222'],
        natsSecurity: {
          user: 'once',
          password: 'pw-from-file',
          tls: { serverName: 'nats.example' },
        },
        natsConnectTimeoutMs: 5000,
      });
    });

    it.each([
      [
        { ONCE_NATS_PASSWORD_FILE: '/nonexistent/pw', ONCE_NATS_USER: 'once' },
        /^cannot read ONCE_NATS_PASSWORD_FILE \/nonexistent\/pw: no such file$/,
      ],
      [{ ONCE_NATS_PASSWORD: 'secret-pw' }, /^a NATS password needs its user: set ONCE_NATS_USER$/],
      [
        { ONCE_NATS_TOKEN: 'secret-tk', ONCE_NATS_USER: 'u', ONCE_NATS_PASSWORD: 'secret-pw' },
        /one way to authenticate/,
      ],
      [{ ONCE_NATS_TLS_CERT_FILE: '/nonexistent/cert.pem' }, /ONCE_NATS_TLS_CERT_FILE/],
    ])('refuses %j as an invalid setting, naming it and no secret', (env, message) => {
      const config = loadServerConfig(argv(), { ...cluster, ...env });
      expect(() => clusterOptionsOf(config)).toThrow(ConfigError);
      expect(() => clusterOptionsOf(config)).toThrow(message);
      expect(() => clusterOptionsOf(config)).not.toThrow(/secret-/);
    });

    it('accepts tls:// URLs and refuses a bad URL without echoing its password', () => {
      expect(loadServerConfig(argv(), cluster).natsServers).toEqual(['tls://n1:4222']);
      expect(() =>
        loadServerConfig(argv(), { ...cluster, ONCE_NATS_SERVERS: 'nats://u:secret-pw@n1:99999' }),
      ).toThrow(/"nats:\/\/\*\*\*@n1:99999" is not one/);
    });
  });

  it('refuses unknown flags', () => {
    expect(() => loadServerConfig(argv('--prot', '1'), {})).toThrow(/unknown option '--prot'/);
  });
});
