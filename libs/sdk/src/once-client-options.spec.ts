import { InvalidOptionsError } from './errors/invalid-options.error';
import { OptionNameConflictError } from './errors/option-name-conflict.error';
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
      inFlightMax: 8,
      queuedMax: 1024,
      requestTimeoutMs: 30_000,
      connectTimeoutMs: 5_000,
      frameBytesMax: 1024 * 1024,
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
      reconnect: { delayMsMax: 100 },
    });
    expect(resolved.requestTimeoutMs).toBe(0);
    expect(resolved.reconnect).toEqual({ ...DEFAULT_OPTIONS.reconnect, delayMsMax: 100 });
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
    ['inFlightMax', { inFlightMax: 0 }],
    ['queuedMax', { queuedMax: -1 }],
    ['requestTimeoutMs', { requestTimeoutMs: -5 }],
    ['connectTimeoutMs', { connectTimeoutMs: 0 }],
    ['identityFile', { identityFile: '' }],
    ['reconnect.factor', { reconnect: { factor: 0.5 } }],
    ['reconnect.jitter', { reconnect: { jitter: 2 } }],
    ['reconnect.delayMsMax', { reconnect: { initialDelayMs: 500, delayMsMax: 100 } }],
    ['reconnect.attemptsMax', { reconnect: { attemptsMax: 0 } }],
    ['learnNodes', { learnNodes: 'yes' as unknown as boolean }],
  ])('refuses a bad %s, naming it', (name, override) => {
    const resolve = () => resolveOptions({ ...REQUIRED, ...override });
    expect(resolve).toThrow(InvalidOptionsError);
    expect(resolve).toThrow(`option ${name} `);
  });

  describe('deprecated option names', () => {
    /** A logger that keeps its lines, fresh per test (warnings are once per logger). */
    function keepingLogger(): { warn(line: string): void; lines: string[] } {
      const lines: string[] = [];
      return { lines, warn: (line) => lines.push(line) };
    }

    it('maps every old name onto its new one; the resolved options carry only the new names', () => {
      const logger = keepingLogger();
      const resolved = resolveOptions({
        ...REQUIRED,
        logger,
        maxInFlight: 4,
        maxQueued: 16,
        maxFrameBytes: 4096,
        reconnect: { maxDelayMs: 300, maxAttempts: 2 },
      });
      expect(resolved).toMatchObject({ inFlightMax: 4, queuedMax: 16, frameBytesMax: 4096 });
      expect(resolved.reconnect).toEqual({
        ...DEFAULT_OPTIONS.reconnect,
        delayMsMax: 300,
        attemptsMax: 2,
      });
      const names = [
        ...Object.keys(resolved),
        ...Object.keys(resolved.reconnect).map((name) => `reconnect.${name}`),
      ];
      for (const old of [
        'maxInFlight',
        'maxQueued',
        'maxFrameBytes',
        'maxDelayMs',
        'maxAttempts',
      ]) {
        expect(names.filter((name) => name.endsWith(old))).toEqual([]);
      }
    });

    it('warns once per old name and logger, naming the new name', () => {
      const logger = keepingLogger();
      resolveOptions({ ...REQUIRED, logger, maxInFlight: 4, reconnect: { maxAttempts: 2 } });
      resolveOptions({ ...REQUIRED, logger, maxInFlight: 4 });
      expect(logger.lines).toEqual([
        'once client: option maxInFlight is deprecated; use inFlightMax',
        'once client: option reconnect.maxAttempts is deprecated; use reconnect.attemptsMax',
      ]);
      const other = keepingLogger();
      resolveOptions({ ...REQUIRED, logger: other, maxInFlight: 4 });
      expect(other.lines).toHaveLength(1);
      expect(() => resolveOptions({ ...REQUIRED, logger: false, maxQueued: 3 })).not.toThrow();
    });

    it('takes the new names without a warning', () => {
      const logger = keepingLogger();
      const resolved = resolveOptions({
        ...REQUIRED,
        logger,
        inFlightMax: 2,
        queuedMax: 5,
        frameBytesMax: 2048,
        reconnect: { delayMsMax: 400, attemptsMax: 7 },
      });
      expect(resolved).toMatchObject({ inFlightMax: 2, queuedMax: 5, frameBytesMax: 2048 });
      expect(resolved.reconnect).toMatchObject({ delayMsMax: 400, attemptsMax: 7 });
      expect(logger.lines).toEqual([]);
    });

    it('accepts an old and a new name given the same value', () => {
      const resolved = resolveOptions({
        ...REQUIRED,
        logger: false,
        inFlightMax: 3,
        maxInFlight: 3,
        reconnect: { attemptsMax: 2, maxAttempts: 2 },
      });
      expect(resolved.inFlightMax).toBe(3);
      expect(resolved.reconnect.attemptsMax).toBe(2);
    });

    it.each([
      ['inFlightMax', 'maxInFlight', { inFlightMax: 8, maxInFlight: 4 }, '8', '4'],
      ['queuedMax', 'maxQueued', { queuedMax: 10, maxQueued: 20 }, '10', '20'],
      [
        'frameBytesMax',
        'maxFrameBytes',
        { frameBytesMax: 2048, maxFrameBytes: 4096 },
        '2048',
        '4096',
      ],
      [
        'reconnect.delayMsMax',
        'reconnect.maxDelayMs',
        { reconnect: { delayMsMax: 100, maxDelayMs: 200 } },
        '100',
        '200',
      ],
      [
        'reconnect.attemptsMax',
        'reconnect.maxAttempts',
        { reconnect: { attemptsMax: 3, maxAttempts: Infinity } },
        '3',
        'Infinity',
      ],
    ])(
      'refuses %s and its old name %s given different values, with OPTION_NAME_CONFLICT',
      (name, old, override, value, oldValue) => {
        let thrown: unknown;
        try {
          resolveOptions({ ...REQUIRED, logger: false, ...override });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(OptionNameConflictError);
        expect(thrown).toMatchObject({
          code: 'OPTION_NAME_CONFLICT',
          option: name,
          deprecatedName: old,
          message: `options ${name} (${value}) and ${old} (${oldValue}, its deprecated name) are both given with different values; give ${name} only`,
        });
      },
    );

    it('validates a value given under an old name under the new name', () => {
      expect(() => resolveOptions({ ...REQUIRED, logger: false, maxInFlight: 0 })).toThrow(
        'option inFlightMax must be an integer ≥ 1, got 0',
      );
    });
  });
});
