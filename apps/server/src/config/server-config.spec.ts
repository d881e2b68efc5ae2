import { ConfigError, loadServerConfig } from './server-config';

const argv = (...flags: string[]) => ['node', 'main.js', ...flags];

describe('server settings', () => {
  it('has the documented defaults', () => {
    expect(loadServerConfig(argv(), {})).toEqual({
      host: '127.0.0.1',
      port: 7700,
      dataDir: './data',
      adminPassword: 'admin',
      adminPasswordIsDefault: true,
      clientsMax: 8192,
      ring: 8,
      maxFrameBytes: 1024 * 1024,
      snapshotEvery: 100_000,
      maxConnections: 10_000,
      maxPendingEntries: 65_536,
      maxWriteBufferBytes: 64 * 1024 * 1024,
      sessionTtlMs: 0,
      partialFrameTimeoutMs: 10_000,
      idleTimeoutMs: 60_000,
      registerFailuresPerMinute: 30,
      registerFailuresPerConnection: 5,
      tlsKeyFile: undefined,
      tlsCertFile: undefined,
      tlsCaFile: undefined,
      verify: false,
      truncateCorruptTail: false,
      yes: false,
      logFormat: 'text',
      logLevel: 'log',
    });
  });

  it('reads ONCE_* variables, and flags win over them', () => {
    const env = {
      ONCE_PORT: '7800',
      ONCE_DATA_DIR: '/tmp/x',
      ONCE_RING: '4',
      ONCE_MAX_FRAME: '64KiB',
      ONCE_MAX_WRITE_BUFFER: '256KiB',
      ONCE_SESSION_TTL: '30m',
      ONCE_ADMIN_PASSWORD: 's3cret',
    };
    const config = loadServerConfig(argv('--port', '7900', '--clients-max', '2'), env);
    expect(config).toMatchObject({
      port: 7900,
      dataDir: '/tmp/x',
      ring: 4,
      clientsMax: 2,
      maxFrameBytes: 64 * 1024,
      maxWriteBufferBytes: 256 * 1024,
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
    [{ ONCE_MAX_FRAME: '10' }, /max-frame must be a size from 128/],
    [{ ONCE_MAX_FRAME: '1GiB' }, /max-frame/],
    [{ ONCE_MAX_WRITE_BUFFER: '1000' }, /max-write-buffer must be a size from 1024/],
    [{ ONCE_SESSION_TTL: '5 weeks' }, /session-ttl must be a duration/],
    [{ ONCE_LOG_FORMAT: 'xml' }, /log-format/],
    [{ ONCE_ADMIN_PASSWORD: '' }, /admin password must not be empty/],
    [{ ONCE_TLS_KEY: '/k.pem' }, /TLS needs both/],
    [{ ONCE_IDLE_TIMEOUT: '0' }, /idle-timeout/],
  ])('refuses %j with a message naming the setting', (env, message) => {
    expect(() => loadServerConfig(argv(), env)).toThrow(ConfigError);
    expect(() => loadServerConfig(argv(), env)).toThrow(message);
  });

  it('refuses unknown flags', () => {
    expect(() => loadServerConfig(argv('--prot', '1'), {})).toThrow(/unknown option '--prot'/);
  });
});
