import { createServer } from 'node:net';
import {
  ClientClosedError,
  ConnectError,
  OnceClient,
  type OnceClientOptions,
  OutcomeUnknownError,
  RequestTimeoutError,
} from '@once/sdk';
import { ServiceProcess, TcpProxy, eventually } from '@once/testing';

const PASSWORD = 'pw';

function depositFrameBytes(account: string): number {
  return (
    128 +
    Buffer.byteLength(JSON.stringify({ pattern: 'ledger.deposit', data: { account, amount: 1 } }))
  );
}

/** Resolves after a few event-loop turns (to see that something has *not* happened yet). */
async function someTurns(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The client reaches the service through a proxy that can hold its requests:
 * a held command is sent (it has its number) but the node has not seen it.
 */
describe('given a client whose requests can be held on the way to the node', () => {
  let service: ServiceProcess;
  let proxy: TcpProxy;
  beforeAll(async () => {
    service = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: PASSWORD } });
    proxy = await TcpProxy.start({ targetPort: service.port });
  });
  afterAll(async () => {
    await proxy?.close();
    await service?.cleanup();
  });
  afterEach(() => proxy.setMode('toServer', 'forward'));

  const connect = (options: Partial<OnceClientOptions> = {}) =>
    OnceClient.connect({ port: proxy.port, username: 'admin', password: PASSWORD, ...options });

  it('when a sent command times out, then it keeps its number and is still applied, and a queued one is withdrawn', async () => {
    const client = await connect({ inFlightMax: 1, requestTimeoutMs: 300 });
    await client.command('ledger.open', { account: 'timeout' }); // request 1
    proxy.setMode('toServer', 'hold');
    const sent = client
      .command('ledger.deposit', { account: 'timeout', amount: 1 })
      .catch((e: unknown) => e);
    const queued = client
      .command('ledger.deposit', { account: 'timeout', amount: 1 })
      .catch((e: unknown) => e);

    const [sentFailure, queuedFailure] = await Promise.all([sent, queued]);
    expect(sentFailure).toBeInstanceOf(RequestTimeoutError);
    expect(sentFailure).toMatchObject({ code: 'REQUEST_TIMEOUT', request: 2 });
    expect(queuedFailure).toBeInstanceOf(RequestTimeoutError);
    expect(queuedFailure).toMatchObject({ request: undefined });
    expect(client.identity.nextRequest).toBe(3);

    proxy.setMode('toServer', 'forward');
    // Request 2 reaches the node and applies; the next command is request 3 (no gap),
    // and the withdrawn one was never sent.
    await expect(
      client.command('ledger.deposit', { account: 'timeout', amount: 1 }),
    ).resolves.toEqual({
      balance: 2,
    });
    expect(client.identity).toMatchObject({ nextRequest: 4, watermark: 3 });
    await client.close();
  });

  it('when the client closes with a command in flight, then close waits for its answer and refuses new work meanwhile', async () => {
    const client = await connect();
    await client.command('ledger.open', { account: 'closing' });
    proxy.setMode('toServer', 'hold');
    const pending = client.command('ledger.deposit', { account: 'closing', amount: 1 });
    await eventually(
      () => proxy.heldBytes('toServer') === depositFrameBytes('closing'),
      'the deposit sent',
    );

    let closed = false;
    const closing = client.close().then(() => (closed = true));
    await someTurns();
    expect(closed).toBe(false);
    await expect(
      client.command('ledger.deposit', { account: 'closing', amount: 1 }),
    ).rejects.toBeInstanceOf(ClientClosedError);

    proxy.setMode('toServer', 'forward');
    await expect(pending).resolves.toEqual({ balance: 1 });
    await closing;
    expect(closed).toBe(true);
  });

  it('when the client closes with force, then a sent command fails as outcome unknown and a queued one as closed', async () => {
    const client = await connect({ inFlightMax: 1 });
    await client.command('ledger.open', { account: 'forced' });
    proxy.setMode('toServer', 'hold');
    const sent = client
      .command('ledger.deposit', { account: 'forced', amount: 1 })
      .catch((e: unknown) => e);
    const queued = client
      .command('ledger.deposit', { account: 'forced', amount: 1 })
      .catch((e: unknown) => e);
    await eventually(
      () => proxy.heldBytes('toServer') === depositFrameBytes('forced'),
      'the deposit sent',
    );

    await client.close({ force: true });

    const sentFailure = await sent;
    expect(sentFailure).toBeInstanceOf(OutcomeUnknownError);
    expect(sentFailure).toMatchObject({ request: 2, reason: 'CLIENT_CLOSED' });
    expect(await queued).toBeInstanceOf(ClientClosedError);
  });
});

describe('given no node listening on the port', () => {
  it('when a client connects, then it rejects with ConnectError', async () => {
    const server = createServer();
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
    );
    await new Promise((resolve) => server.close(resolve));

    const failure = await OnceClient.connect({ port, username: 'admin', password: PASSWORD }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConnectError);
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED' });
  });
});
