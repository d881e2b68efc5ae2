import { InvalidOptionsError } from './errors/invalid-options.error';
import { DEFAULT_OPTIONS, resolveOptions } from './once-client-options';

const REQUIRED = { port: 7700, username: 'u', password: 'p' };
const CREDENTIALS = { username: 'u', password: 'p' };
const NODES = [
  { host: '10.0.0.1', port: 7700 },
  { host: 'once-2.internal', port: 7701 },
];

describe('resolveOptions', () => {
  it('fills in the documented defaults', () => {
    expect(resolveOptions(REQUIRED)).toEqual({
      ...CREDENTIALS,
      nodes: [{ host: '127.0.0.1', port: 7700 }],
      learnNodes: false,
      trustLeaderHints: 'tls',
      logger: console,
      onEvent: undefined,
      clientId: undefined,
      identityFile: undefined,
      maxInFlight: 8,
      maxQueued: 1024,
      requestTimeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      maxFrameBytes: 1024 * 1024,
      reconnect: DEFAULT_OPTIONS.reconnect,
      tls: undefined,
    });
  });

  it('follows leader hints to configured nodes, or over verified TLS, by default; logs to the console', () => {
    const resolved = resolveOptions(REQUIRED);
    expect(resolved.trustLeaderHints).toBe('tls');
    expect(resolved.logger).toBe(console);
  });

  it('takes trustLeaderHints configured/tls/any, a logger or false, and an onEvent callback', () => {
    const logger = { warn: () => undefined };
    const onEvent = () => undefined;
    for (const trust of ['configured', 'tls', 'any'] as const) {
      expect(resolveOptions({ ...REQUIRED, trustLeaderHints: trust }).trustLeaderHints).toBe(trust);
    }
    expect(resolveOptions({ ...REQUIRED, logger }).logger).toBe(logger);
    expect(resolveOptions({ ...REQUIRED, logger: false }).logger).toBeUndefined();
    expect(resolveOptions({ ...REQUIRED, onEvent }).onEvent).toBe(onEvent);
  });

  it('refuses an unknown trustLeaderHints, a logger without warn, and an onEvent that is not a function', () => {
    expect(() => resolveOptions({ ...REQUIRED, trustLeaderHints: 'all' as never })).toThrow(
      'option trustLeaderHints must be one of configured, tls, any, got all',
    );
    expect(() => resolveOptions({ ...REQUIRED, logger: {} as never })).toThrow(InvalidOptionsError);
    expect(() => resolveOptions({ ...REQUIRED, onEvent: 'x' as never })).toThrow(
      InvalidOptionsError,
    );
  });

  it('keeps what is given, reconnect fields one by one', () => {
    const resolved = resolveOptions({
      ...REQUIRED,
      requestTimeoutMs: 0,
      reconnect: { maxDelayMs: 100 },
    });
    expect(resolved.requestTimeoutMs).toBe(0);
    expect(resolved.reconnect).toEqual({ ...DEFAULT_OPTIONS.reconnect, maxDelayMs: 100 });
  });

  it('takes nodes instead of host/port, in their order, and learns nodes by default with them', () => {
    const resolved = resolveOptions({ ...CREDENTIALS, nodes: NODES });
    expect(resolved.nodes).toEqual(NODES);
    expect(resolved.nodes).not.toBe(NODES);
    expect(resolved.learnNodes).toBe(true);
    expect(resolveOptions({ ...CREDENTIALS, nodes: NODES, learnNodes: false }).learnNodes).toBe(
      false,
    );
    expect(resolveOptions({ ...REQUIRED, learnNodes: true }).learnNodes).toBe(true);
  });

  it.each([
    ['host and port', { host: '127.0.0.1', port: 7700 }],
    ['port alone', { port: 7700 }],
    ['host alone', { host: '127.0.0.1' }],
  ])('refuses nodes with %s, saying they exclude each other', (_what, address) => {
    const resolve = () => resolveOptions({ ...CREDENTIALS, ...address, nodes: NODES });
    expect(resolve).toThrow(InvalidOptionsError);
    expect(resolve).toThrow('options host/port and nodes exclude each other');
  });

  it('without nodes and without port, asks for the port as before', () => {
    expect(() => resolveOptions(CREDENTIALS)).toThrow('option port must be an integer in 1..65535');
  });

  it.each([
    ['nodes', []],
    ['nodes', 'a:1'],
    ['nodes[0].host', [{ port: 1 }]],
    [
      'nodes[1].port',
      [
        { host: 'a', port: 1 },
        { host: 'b', port: 70_000 },
      ],
    ],
    ['nodes[0].host', [null]],
    [
      'nodes[1]',
      [
        { host: 'a', port: 1 },
        { host: 'A', port: 1 },
      ],
    ],
  ])('refuses bad nodes, naming %s', (name, nodes) => {
    const resolve = () =>
      resolveOptions({ ...CREDENTIALS, nodes: nodes as unknown as typeof NODES });
    expect(resolve).toThrow(InvalidOptionsError);
    expect(resolve).toThrow(`option ${name} `);
  });

  it.each([
    ['port', { port: 0 }],
    ['port', { port: 1.5 }],
    ['clientId', { clientId: 'xyz' }],
    ['clientId', { clientId: '0'.repeat(32) }],
    ['maxInFlight', { maxInFlight: 0 }],
    ['maxQueued', { maxQueued: -1 }],
    ['requestTimeoutMs', { requestTimeoutMs: -5 }],
    ['connectTimeoutMs', { connectTimeoutMs: 0 }],
    ['identityFile', { identityFile: '' }],
    ['reconnect.factor', { reconnect: { factor: 0.5 } }],
    ['reconnect.jitter', { reconnect: { jitter: 2 } }],
    ['reconnect.maxDelayMs', { reconnect: { initialDelayMs: 500, maxDelayMs: 100 } }],
    ['reconnect.maxAttempts', { reconnect: { maxAttempts: 0 } }],
    ['learnNodes', { learnNodes: 'yes' as unknown as boolean }],
  ])('refuses a bad %s, naming it', (name, override) => {
    const resolve = () => resolveOptions({ ...REQUIRED, ...override });
    expect(resolve).toThrow(InvalidOptionsError);
    expect(resolve).toThrow(`option ${name} `);
  });
});
