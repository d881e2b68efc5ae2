import { type AddressInfo, createServer } from 'node:net';
import { errorBody, okBody } from '@once/protocol/internal';
import { CommandRefusedError, type OnceClient } from '@once/sdk';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import { type Script, ScriptedNode } from './__fixtures__/scripted-node.fixture';
import { OnceClientProxy } from './once-client-proxy';
import { type OnceClientProxyOptions } from './once-client-proxy-options';
import { NEST_CLIENT_OPTIONS } from './nest-client-options';
import {
  QueryEmitError,
  UnknownOptionError,
  UnsupportedEventError,
  UnsupportedOptionError,
} from './proxy-errors';

const CATALOGUE = { commands: ['orders.place', '{"cmd":"sum"}'], queries: ['orders.get'] };

/** A node that serves CATALOGUE, answers `refusals` with their body and everything else with its own pattern. */
function scriptWith(refusals: Record<string, string> = {}, catalogue: unknown = CATALOGUE): Script {
  return (_operation, pattern) => {
    if (pattern === '$once.patterns') {
      return catalogue === undefined
        ? errorBody('UNKNOWN_PATTERN', 'no query handler').toString()
        : okBody(catalogue).toString();
    }
    return refusals[pattern] ?? okBody({ pattern }).toString();
  };
}

describe('OnceClientProxy against a scripted node', () => {
  let node: ScriptedNode;
  let proxy: OnceClientProxy;

  async function start(script: Script, extra: Partial<OnceClientProxyOptions> = {}) {
    node = await ScriptedNode.start(script);
    proxy = new OnceClientProxy({ port: node.port, username: 'u', password: 'p', ...extra });
  }
  afterEach(async () => {
    await proxy?.close();
    await node?.close();
  });

  describe('when a refusal body carries an RpcException error object (error.rpcError)', () => {
    const refusals = {
      'object.refused': JSON.stringify({
        ok: false,
        error: { code: 'OUT_OF_STOCK', message: 'no bolts', rpcError: { code: 'E42', left: 0 } },
      }),
      'string.refused': JSON.stringify({
        ok: false,
        error: { code: 'RPC_ERROR', message: 'no bolts', rpcError: 'no bolts' },
      }),
      'plain.refused': errorBody('ACCOUNT_NOT_FOUND', 'no account "x"').toString(),
    };

    it('then send() errors with exactly that object, as a NestJS TCP client would', async () => {
      await start(scriptWith(refusals));
      const error: unknown = await firstValueFrom(proxy.send('object.refused', {})).catch(
        (thrown: unknown) => thrown,
      );
      expect(error).toEqual({ code: 'E42', left: 0 });
      expect(error).not.toBeInstanceOf(Error);
    });

    it('then a string error value (an exception filter that answered a string) is that string, as NestJS TCP gives it', async () => {
      await start(scriptWith(refusals));
      await expect(firstValueFrom(proxy.send('string.refused', {}))).rejects.toBe('no bolts');
      await expect(lastValueFrom(proxy.emit('string.refused', {}))).rejects.toBe('no bolts');
    });

    it("then the SDK's CommandRefusedError exposes it as rpcError, and a refusal without one stays a CommandRefusedError", async () => {
      await start(scriptWith(refusals));
      const client = await proxy.connect();
      const refused: unknown = await client.command('object.refused', {}).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CommandRefusedError);
      expect(refused).toMatchObject({ code: 'OUT_OF_STOCK', rpcError: { code: 'E42', left: 0 } });
      const plain: unknown = await firstValueFrom(proxy.send('plain.refused', {})).catch(
        (e: unknown) => e,
      );
      expect(plain).toBeInstanceOf(CommandRefusedError);
      expect(plain).toMatchObject({ code: 'ACCOUNT_NOT_FOUND', rpcError: undefined });
    });
  });

  describe('when the node lists its patterns in the catalogue', () => {
    it('then a @Query is sent as a QUERY, everything else as a COMMAND, and the catalogue is asked once', async () => {
      await start(scriptWith());
      await firstValueFrom(proxy.send('orders.get', { seq: 1 }));
      await firstValueFrom(proxy.send('orders.place', { item: 'bolt' }));
      await firstValueFrom(proxy.send('orders.get', { seq: 2 }));
      expect(node.calls).toEqual([
        { operation: 'query', pattern: '$once.patterns' },
        { operation: 'query', pattern: 'orders.get' },
        { operation: 'command', pattern: 'orders.place' },
        { operation: 'query', pattern: 'orders.get' },
      ]);
    });

    it("then an object pattern is sent as NestJS's normalised string", async () => {
      await start(scriptWith());
      await expect(firstValueFrom(proxy.send({ cmd: 'sum' }, [1, 2]))).resolves.toEqual({
        pattern: '{"cmd":"sum"}',
      });
      await firstValueFrom(proxy.send({ role: 'math', cmd: 'sum' }, [1, 2]));
      expect(node.calls.slice(1)).toEqual([
        { operation: 'command', pattern: '{"cmd":"sum"}' },
        { operation: 'command', pattern: '{"cmd":"sum","role":"math"}' },
      ]);
    });

    it('then { query: "x" } is still the query x, unless the node serves the object pattern itself', async () => {
      await start(scriptWith({}, { commands: [], queries: ['{"query":"own"}'] }));
      await firstValueFrom(proxy.send({ query: 'orders.get' }, {}));
      await firstValueFrom(proxy.send({ query: 'own' }, {}));
      expect(node.calls.slice(1)).toEqual([
        { operation: 'query', pattern: 'orders.get' },
        { operation: 'query', pattern: '{"query":"own"}' },
      ]);
    });

    it('then emit() of a @Query is refused before anything is sent', async () => {
      await start(scriptWith());
      const refused: unknown = await lastValueFrom(proxy.emit('orders.get', {})).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(QueryEmitError);
      expect(refused).toMatchObject({
        code: 'QUERY_PATTERN',
        message:
          'emit(\'orders.get\'): "orders.get" is a @Query, which only reads; an event is a command applied exactly once. Use send() to run the query',
      });
      expect(node.calls).toEqual([{ operation: 'query', pattern: '$once.patterns' }]);
    });
  });

  it('when the node is too old for a catalogue, then `queries` decides and the rest are commands', async () => {
    await start(scriptWith({}, undefined), { queries: ['orders.get', { cmd: 'total' }] });
    await firstValueFrom(proxy.send('orders.get', {}));
    await firstValueFrom(proxy.send({ cmd: 'total' }, {}));
    await firstValueFrom(proxy.send('orders.list', {}));
    expect(node.calls).toEqual([
      { operation: 'query', pattern: '$once.patterns' },
      { operation: 'query', pattern: 'orders.get' },
      { operation: 'query', pattern: '{"cmd":"total"}' },
      { operation: 'command', pattern: 'orders.list' },
    ]);
    expect(proxy.unwrap<OnceClient>().stopped).toBe(false);
  });

  it('when given nodes whose first one listens nowhere, then it passes them to the SDK, which connects to the second', async () => {
    const dead = await freePort();
    node = await ScriptedNode.start(scriptWith());
    proxy = new OnceClientProxy({
      nodes: [
        { host: '127.0.0.1', port: dead },
        { host: '127.0.0.1', port: node.port },
      ],
      username: 'u',
      password: 'p',
    });
    await expect(firstValueFrom(proxy.send('orders.place', {}))).resolves.toEqual({
      pattern: 'orders.place',
    });
    const client = proxy.unwrap<OnceClient>();
    expect(client.node).toEqual({ host: '127.0.0.1', port: node.port });
    expect(client.nodes).toHaveLength(2);
  });
});

/** A port nothing listens on (it was free a moment ago). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OnceClientProxy options and events', () => {
  it.each(['serializer', 'deserializer'])(
    'when a NestJS %s is given, then construction is refused, naming what to do instead',
    (option) => {
      const options = { port: 7700, username: 'u', password: 'p', [option]: { serialize: String } };
      let thrown: unknown;
      try {
        new OnceClientProxy(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UnsupportedOptionError);
      expect(thrown).toBeInstanceOf(TypeError);
      expect(thrown).toMatchObject({
        code: 'OPTION_UNSUPPORTED',
        message: `OnceClientProxy takes no ${option}: once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data before send() or emit(), and the result after, instead`,
      });
    },
  );

  it.each(
    Object.keys(NEST_CLIENT_OPTIONS).filter((o) => o !== 'serializer' && o !== 'deserializer'),
  )(
    'when the NestJS TCP client option %s is given, then construction is refused, naming what to use',
    (option) => {
      let thrown: unknown;
      try {
        new OnceClientProxy({ port: 7700, username: 'u', password: 'p', [option]: 1 });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UnsupportedOptionError);
      expect(thrown).toMatchObject({
        code: 'OPTION_UNSUPPORTED',
        message: `OnceClientProxy takes no ${option}: ${NEST_CLIENT_OPTIONS[option as keyof typeof NEST_CLIENT_OPTIONS]}`,
      });
    },
  );

  it('when an option it does not know is given, then construction is refused, listing its options', () => {
    const options = { port: 7700, username: 'u', password: 'p', requestTimeout: 5 };
    expect(() => new OnceClientProxy(options)).toThrow(UnknownOptionError);
    expect(() => new OnceClientProxy(options)).toThrow(
      /OnceClientProxy has no option "requestTimeout"; its options are .*requestTimeoutMs/,
    );
  });

  it("when the SDK's deprecated option names are given, then they are passed on to the SDK, not refused", () => {
    const proxy = new OnceClientProxy({
      port: 7700,
      username: 'u',
      password: 'p',
      maxInFlight: 4,
      maxQueued: 16,
      maxFrameBytes: 4096,
      reconnect: { maxAttempts: 2, maxDelayMs: 300 },
    });
    expect((proxy as unknown as { sdkOptions: object }).sdkOptions).toMatchObject({
      maxInFlight: 4,
      maxQueued: 16,
      maxFrameBytes: 4096,
      reconnect: { maxAttempts: 2, maxDelayMs: 300 },
    });
  });

  it("when tlsOptions are given, then they are the SDK client's tls; beside tls they are refused", () => {
    const tlsOptions = { servername: 'node-1', rejectUnauthorized: true };
    const proxy = new OnceClientProxy({ port: 7700, username: 'u', password: 'p', tlsOptions });
    expect((proxy as unknown as { sdkOptions: { tls: unknown } }).sdkOptions.tls).toEqual(
      tlsOptions,
    );
    expect(
      () =>
        new OnceClientProxy({ port: 7700, username: 'u', password: 'p', tlsOptions, tls: true }),
    ).toThrow('OnceClientProxy takes no tlsOptions beside tls');
  });

  it('when a listener is added for a TCP socket event once has no equivalent of, then on() throws', () => {
    const proxy = new OnceClientProxy({ port: 7700, username: 'u', password: 'p' });
    const on = proxy.on.bind(proxy) as (event: string, callback: () => void) => void;
    expect(() => on('drain', () => undefined)).toThrow(UnsupportedEventError);
    expect(() => on('drain', () => undefined)).toThrow(
      "OnceClientProxy has no 'drain' event: it emits 'connect', 'close', 'error'; for every transition of the connection and the session, subscribe to unwrap<OnceClient>().events$",
    );
    expect(() => proxy.on('error', () => undefined)).not.toThrow();
  });
});
