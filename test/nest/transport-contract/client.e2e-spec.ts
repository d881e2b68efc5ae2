import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { types } from 'node:util';
import {
  HttpException,
  InternalServerErrorException,
  RequestTimeoutException,
} from '@nestjs/common';
import { type ClientProxy } from '@nestjs/microservices';
import { OnceServer, UnsupportedGatewayOptionError } from '@once/gateway';
import { UnsupportedOptionError } from '@once/nest-client';
import { Status, randomClientId } from '@once/protocol';
import { CommandRefusedError, ConnectError, type OnceClient, OutcomeUnknownError } from '@once/sdk';
import { RawClient, TcpProxy, eventually, outcomeOf, registrationOf } from '@once/testing';
import { catchError, firstValueFrom, lastValueFrom, throwError } from 'rxjs';
import {
  type ClientRig,
  ONCE_USER,
  type OnceRig,
  TRANSPORTS,
  clientRig,
  onceRig,
} from './support/client-rigs';
import { held } from './support/client-handlers';
import { outcomeOfCall } from './support/contract-apps';

/**
 * The client half of the transport contract: each scenario runs against
 * NestJS's own TCP transport and against once (OnceClientProxy to a once
 * node), and asserts that an application sees the same thing through
 * `ClientProxy`, or, where once cannot do the same, a refusal that says why.
 * The last part holds what only once has (its node's side of the same rows).
 */

/** What NestJS answers for a pattern no handler claims. */
const NO_HANDLER = 'There is no matching message handler defined in the remote service.';

const send = <T>(client: ClientProxy, pattern: unknown, data: unknown): Promise<T> =>
  firstValueFrom(client.send<T>(pattern, data));
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
/** `on` of any transport's client, whatever events its type declares. */
const on = (client: ClientProxy, event: string, callback: (...args: unknown[]) => void): void =>
  (client.on as (event: string, callback: (...args: unknown[]) => void) => void).call(
    client,
    event,
    callback,
  );

describe.each(TRANSPORTS)('given a ClientProxy of the %s transport', (transport) => {
  let rig: ClientRig;
  beforeEach(async () => {
    rig = await clientRig(transport);
  });
  afterEach(() => rig.cleanup());

  describe('and a running server', () => {
    beforeEach(() => rig.startServer());

    it('when the client connects with a call, the server goes away and comes back, a call is made, and the client closes, then status says connected, disconnected, connected, disconnected', async () => {
      const client = rig.client();
      const statuses: string[] = [];
      client.status.subscribe((status) => statuses.push(status));

      await expect(send(client, 'sum', [1])).resolves.toBe(1);
      expect(statuses).toEqual(['connected']);

      await rig.stopServer();
      await eventually(() => statuses.length === 2, 'the client to see the server go');
      expect(statuses).toEqual(['connected', 'disconnected']);

      await rig.startServer();
      await expect(send(client, 'sum', [1, 2])).resolves.toBe(3);
      expect(statuses).toEqual(['connected', 'disconnected', 'connected']);

      await client.close();
      await eventually(() => statuses.length === 4, 'the client to report its close');
      expect(statuses).toEqual(['connected', 'disconnected', 'connected', 'disconnected']);
    });

    it('when ten calls are made at once on a new client (sum-rpc’s concurrent scenario), then each gets its own answer', async () => {
      const client = rig.client();
      const batches = Array.from({ length: 10 }, (_, batch) =>
        Array.from({ length: 10 }, (_, k) => batch * 10 + k + 1),
      );

      const results = await Promise.all(batches.map((batch) => send<number>(client, 'sum', batch)));

      expect(results).toEqual(batches.map((batch) => batch.reduce((a, b) => a + b, 0)));
    });

    describe('and a call in flight in its handler', () => {
      beforeEach(() => held.reset());
      afterEach(() => held.open());

      const callInFlight = async (client: ClientProxy) => {
        const outcome = outcomeOfCall(client.send('held.sum', [1, 2]));
        await eventually(() => held.entered === 1, 'the call to reach its handler');
        return { outcome };
      };

      it('when the client closes, then TCP fails the call with "Connection closed", once answers it before it closes', async () => {
        const client = rig.client();
        const { outcome } = await callInFlight(client);

        const closing = Promise.resolve(client.close());
        held.open();
        await closing;

        if (transport === 'nest-tcp') {
          expect(await outcome).toEqual({ values: [], error: new Error('Connection closed') });
        } else {
          expect(await outcome).toEqual({ values: [3] });
        }
      });

      it('when the server closes, then TCP fails the call with "Connection closed", once answers it before it stops', async () => {
        const client = rig.client();
        const { outcome } = await callInFlight(client);

        const stopping = rig.stopServer();
        if (transport === 'nest-tcp') {
          // The connection is destroyed with the call in its handler.
          expect(await outcome).toEqual({ values: [], error: new Error('Connection closed') });
        }
        held.open();
        await stopping;

        if (transport === 'once') expect(await outcome).toEqual({ values: [3] });
      });
    });

    it("when an object pattern { cmd: 'total' } is sent, then the handler of that object pattern answers", async () => {
      const client = rig.client();
      await expect(send(client, { cmd: 'total' }, [1, 2, 3])).resolves.toBe(6);
      await expect(send(client, 'sum', [4])).resolves.toBe(4);
    });

    it('when a read the client was never told about is sent, then its handler answers it', async () => {
      const client = rig.client();
      await expect(send(client, 'notes.count', {})).resolves.toBe(0);
    });

    it('when a pattern no handler claims is sent, then the call fails with NestJS’s sentence (once: refused UNKNOWN_PATTERN, its message holding the sentence and the pattern)', async () => {
      const error = await failure(send(rig.client(), 'nothing.here', {}));
      if (transport === 'nest-tcp') {
        // NestJS's server answers the bare sentence, and its client errors with that string.
        expect(error).toBe(NO_HANDLER);
      } else {
        expect(error).toBeInstanceOf(CommandRefusedError);
        expect(error).toMatchObject({
          code: 'UNKNOWN_PATTERN',
          message: `${NO_HANDLER} (no command handler for pattern "nothing.here")`,
        });
      }
    });

    it('when an event is emitted, then the observable completes without a value and the handler records it', async () => {
      const client = rig.client();
      await expect(lastValueFrom(client.emit('notes.add', { text: 'hello' }))).resolves.toBe(
        undefined,
      );
      await eventually(
        async () => (await send<number>(client, 'notes.count', {})) === 1,
        'the note to be recorded',
      );
    });

    it('when an event is emitted to the pattern of a read, then TCP runs the read and drops its answer, once refuses it', async () => {
      const client = rig.client();
      const emitted = lastValueFrom(client.emit('notes.count', {}));
      if (transport === 'nest-tcp') {
        await expect(emitted).resolves.toBe(undefined);
      } else {
        await expect(emitted).rejects.toMatchObject({
          name: 'QueryEmitError',
          code: 'QUERY_PATTERN',
          message:
            'emit(\'notes.count\'): "notes.count" is a @Query, which only reads; an event is a command applied exactly once. Use send() to run the query',
        });
      }
      await expect(send(client, 'notes.count', {})).resolves.toBe(0);
    });

    it('when a serializer is configured, then TCP applies it to what is sent, once refuses it when the client is made', async () => {
      const tenfold = {
        serialize: (packet: { data: number[] }) => ({
          ...packet,
          data: packet.data.map((value) => value * 10),
        }),
      };
      if (transport === 'nest-tcp') {
        await expect(send(rig.client({ serializer: tenfold }), 'sum', [1, 2])).resolves.toBe(30);
        return;
      }
      const refused = (() => {
        try {
          rig.client({ serializer: tenfold });
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(UnsupportedOptionError);
      expect(refused).toMatchObject({
        code: 'OPTION_UNSUPPORTED',
        message:
          "OnceClientProxy takes no serializer: once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data before send() or emit(), and the result after, instead",
      });
    });

    it('when the client gave up on a server that went away and the server comes back, then the next call connects again and succeeds', async () => {
      // A once client gives up after its reconnect attempts; a TCP client never retries on its own.
      const client = rig.client({
        reconnect: { initialDelayMs: 5, delayMsMax: 10, attemptsMax: 2 },
      });
      const errors: unknown[] = [];
      on(client, 'error', (error) => errors.push(error));
      const statuses: string[] = [];
      client.status.subscribe((status) => statuses.push(status));
      await expect(send(client, 'sum', [1])).resolves.toBe(1);

      await rig.stopServer();
      if (transport === 'once') {
        await eventually(() => client.unwrap<OnceClient>().stopped, 'the once client to give up');
        expect(errors).toEqual([
          expect.objectContaining({
            name: 'ProxyConnectError',
            code: 'ECONNREFUSED',
            onceCode: 'CONNECT_FAILED',
            // and what the last attempt met
            message: expect.stringMatching(
              /^no session bound after 2 reconnect attempts; the last: .*127\.0\.0\.1:\d+/,
            ) as string,
          }),
        ]);
      }
      await eventually(() => statuses.at(-1) === 'disconnected', 'the client to see it');

      await rig.startServer();
      await expect(send(client, 'sum', [2, 3])).resolves.toBe(5);
      expect(statuses).toEqual(['connected', 'disconnected', 'connected']);
    });
  });

  describe('and no server yet', () => {
    it('when a client is made before the server starts and calls once it runs, then the call connects and succeeds', async () => {
      const client = rig.client();
      const statuses: string[] = [];
      client.status.subscribe((status) => statuses.push(status));

      await rig.startServer();

      await expect(send(client, 'sum', [1, 2])).resolves.toBe(3);
      expect(statuses).toEqual(['connected']);
    });

    it('when the first call fails to connect and the server then starts on that port, then the next call connects and succeeds', async () => {
      const client = rig.client();
      const statuses: string[] = [];
      client.status.subscribe((status) => statuses.push(status));
      let closed = false;
      on(client, 'close', () => (closed = true));

      const error = await failure(send(client, 'sum', [1, 2]));
      expect(types.isNativeError(error)).toBe(true);
      expect(statuses).toEqual(['disconnected']);
      // TCP reuses its failed connect for calls made before the failed socket closed.
      await eventually(() => closed, 'the failed connection to close');

      await rig.startServer();
      await expect(send(client, 'sum', [1, 2])).resolves.toBe(3);
      expect(statuses).toEqual(['disconnected', 'connected']);
    });

    it("when an 'error' listener is registered before connecting and the connect fails, then it receives the error the call failed with", async () => {
      const client = rig.client();
      const errors: unknown[] = [];
      on(client, 'error', (error) => errors.push(error));

      const error = await failure(send(client, 'sum', [1]));
      expect(types.isNativeError(error)).toBe(true);
      await eventually(() => errors.length > 0, "the 'error' listener to be called");
      expect(errors[0]).toBe(error);
      expect(error).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
      if (transport === 'once') {
        expect(error).toMatchObject({ name: 'ProxyConnectError', onceCode: 'CONNECT_FAILED' });
        expect((error as Error).cause).toBeInstanceOf(ConnectError);
      }
    });

    it("when a call fails to connect and the app maps the error as NestJS's disconnected-client app does, then it answers 408", async () => {
      // NestJS's integration app: ECONNREFUSED (or no error) is a 408, anything else a 500.
      const mapped = await failure(
        firstValueFrom(
          rig
            .client()
            .send({ cmd: 'none' }, [1, 2, 3])
            .pipe(
              catchError((error: { code?: string } | undefined) => {
                const { code } = error ?? { code: 'CONN_ERR' };
                return throwError(() =>
                  code === 'ECONNREFUSED' || code === 'CONN_ERR'
                    ? new RequestTimeoutException('ECONNREFUSED')
                    : new InternalServerErrorException(),
                );
              }),
            ),
        ),
      );
      expect(mapped).toBeInstanceOf(HttpException);
      expect((mapped as HttpException).getStatus()).toBe(408);
    });

    it("when 'connect' and 'close' listeners are registered before a failed connect, then TCP forgets them with its failed socket, once keeps them", async () => {
      const client = rig.client();
      const seen: string[] = [];
      on(client, 'connect', () => seen.push('connect'));
      on(client, 'close', () => seen.push('close'));
      on(client, 'error', () => seen.push('error'));

      await failure(send(client, 'sum', [1]));
      await eventually(() => seen.includes('close'), 'the failed connection to close');
      expect(seen).toEqual(['error', 'close']);
      await rig.startServer();
      await expect(send(client, 'sum', [1])).resolves.toBe(1);
      await client.close();

      if (transport === 'nest-tcp') {
        // The listeners were attached to the socket that failed, and went with it.
        expect(seen).toEqual(['error', 'close']);
      } else {
        await eventually(() => seen.length === 4, 'the close to be reported');
        expect(seen).toEqual(['error', 'close', 'connect', 'close']);
      }
    });
  });
});

describe('given OnceServer options of a NestJS transport', () => {
  it.each(['serializer', 'deserializer'])(
    'when a %s is passed, then the server refuses it instead of ignoring it',
    (option) => {
      const codec = {
        serialize: (value: unknown) => value,
        deserialize: (value: unknown) => value,
      };
      const make = () => new OnceServer({ port: 0, ...{ [option]: codec } });
      expect(make).toThrow(UnsupportedGatewayOptionError);
      expect(make).toThrow(
        `OnceServer takes no ${option}: once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data in a pipe, an interceptor or the handler instead`,
      );
    },
  );
});

describe('given a once node', () => {
  let rig: OnceRig;
  beforeEach(async () => {
    rig = await onceRig();
    await rig.startServer();
  });
  afterEach(() => rig.cleanup());

  it('when a client asks for the pattern catalogue, then it lists the @Command and @Query patterns, sorted', async () => {
    const client = rig.client();
    const sdk = (await client.connect()) as OnceClient;
    await expect(sdk.patterns()).resolves.toEqual({
      commands: ['notes.add', 'sum', '{"cmd":"total"}'],
      queries: ['held.sum', 'notes.count'],
    });
  });

  it('when a QUERY names a pattern no handler claims, then it is refused UNKNOWN_PATTERN with NestJS’s sentence', async () => {
    const raw = await RawClient.connect(rig.port);
    try {
      const client = randomClientId();
      const { epoch } = registrationOf(
        await raw.register(client, ONCE_USER.username, ONCE_USER.password),
      );
      expect(outcomeOf(await raw.query(client, epoch, 'nothing.here', {}))).toEqual({
        ok: false,
        error: {
          code: 'UNKNOWN_PATTERN',
          message: `${NO_HANDLER} (no query handler for pattern "nothing.here")`,
        },
      });
    } finally {
      raw.destroy();
    }
  });

  it('when a @Query pattern arrives as a COMMAND, then it is refused as QUERY_PATTERN, committed, and a retry after a restart gets the same bytes', async () => {
    const client = randomClientId();
    const first = await RawClient.connect(rig.port);
    const { epoch, resumeToken } = registrationOf(
      await first.register(client, ONCE_USER.username, ONCE_USER.password),
    );
    const refused = await first.command(client, epoch, 1, 'notes.count', {});
    first.destroy();
    expect(refused.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    expect(refused.header.op).toBeGreaterThan(0);
    expect(outcomeOf(refused)).toEqual({
      ok: false,
      error: {
        code: 'QUERY_PATTERN',
        message:
          '"notes.count" is a @Query; send it as a QUERY (OnceClientProxy discovers queries from the node)',
      },
    });

    // The node replays its journal; the refusal comes back from the entry, not from the handlers.
    await rig.stopServer();
    await rig.startServer();
    const second = await RawClient.connect(rig.port);
    try {
      const retry = await second.command(client, epoch, 1, 'notes.count', {}, resumeToken);
      expect(Buffer.from(retry.raw)).toEqual(Buffer.from(refused.raw));
    } finally {
      second.destroy();
    }
  });

  describe.each([
    ['with an identity file', true],
    ['without an identity file', false],
  ])(
    'and an OnceClientProxy %s whose connection is cut while an event is in doubt',
    (_how, withFile) => {
      let proxy: TcpProxy;
      let directory: string;
      let client: ClientProxy | undefined;
      beforeEach(async () => {
        proxy = await TcpProxy.start({ targetPort: rig.port });
        directory = await mkdtemp(join(tmpdir(), 'once-client-identity-'));
      });
      afterEach(async () => {
        // The client first: it may still be writing its identity file into the directory.
        await Promise.resolve(client?.close()).catch(() => undefined);
        client = undefined;
        await proxy.close();
        await rm(directory, { recursive: true, force: true, maxRetries: 5 });
      });

      it('when the client gives up reconnecting, then the event fails with OutcomeUnknownError, and the next call connects again and finds it applied once', async () => {
        client = rig.client({
          port: proxy.port,
          reconnect: { initialDelayMs: 5, delayMsMax: 10, attemptsMax: 2 },
          ...(withFile && { identityFile: join(directory, 'identity.json') }),
        });
        await expect(send(client, 'sum', [1])).resolves.toBe(1);
        const before = client.unwrap<OnceClient>().identity.clientId;

        // The event commits, and its reply never reaches the client.
        proxy.setMode('toClient', 'hold');
        const inDoubt = lastValueFrom(client.emit('notes.add', { text: 'in doubt' }));
        await eventually(() => proxy.heldBytes('toClient') > 0, 'the event to commit');
        proxy.accepting = false;
        proxy.cut();
        proxy.setMode('toClient', 'forward');

        const error = await failure(inDoubt);
        expect(error).toBeInstanceOf(OutcomeUnknownError);
        expect(error).toMatchObject({ request: 2, pattern: 'notes.add', reason: 'CONNECT_FAILED' });
        expect(client.unwrap<OnceClient>().stopped).toBe(true);

        proxy.accepting = true;
        await expect(send(client, 'notes.count', {})).resolves.toBe(1);
        const after = client.unwrap<OnceClient>();
        if (withFile) {
          // The same session: the event was resent under its number and answered from the reply cache.
          expect(after.identity.clientId).toBe(before);
          await expect(after.recovered).resolves.toEqual([
            { request: 2, pattern: 'notes.add', outcome: 'applied', result: null },
          ]);
        } else {
          expect(after.identity.clientId).not.toBe(before);
          await expect(after.recovered).resolves.toEqual([]);
        }
      });
    },
  );
});
