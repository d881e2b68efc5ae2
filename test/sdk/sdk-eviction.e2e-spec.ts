import { randomClientId } from '@once/protocol';
import { type OnceClientEvent, OnceClient, OutcomeUnknownError } from '@once/sdk';
import { RawClient, registrationOf, ServiceProcess, TcpProxy, eventually } from '@once/testing';

const PASSWORD = 'pw';
const IN_FLIGHT = 3;

/** Bytes of one deposit frame of `account`, as the SDK sends it. */
function depositFrameBytes(account: string): number {
  return (
    128 +
    Buffer.byteLength(JSON.stringify({ pattern: 'ledger.deposit', data: { account, amount: 1 } }))
  );
}

/**
 * The client table holds one session (ONCE_CLIENTS_MAX=1), so any other
 * REGISTER evicts the client's session. The client reaches the service through
 * a proxy that holds its requests: they are sent (in doubt) but never reach
 * the node, so whether they were applied is known to the test, not to the SDK.
 */
describe('given a service whose client table holds a single session', () => {
  let service: ServiceProcess;
  let proxy: TcpProxy;
  beforeEach(async () => {
    service = await ServiceProcess.start({
      env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_CLIENTS_MAX: '1' },
    });
    proxy = await TcpProxy.start({ targetPort: service.port });
  });
  afterEach(async () => {
    await proxy.close();
    await service.cleanup();
  });

  async function clientWithCommandsInDoubt(account: string) {
    const client = await OnceClient.connect({
      port: proxy.port,
      username: 'admin',
      password: PASSWORD,
      inFlightMax: IN_FLIGHT,
      reconnect: { initialDelayMs: 10, delayMsMax: 100 },
    });
    const events: OnceClientEvent[] = [];
    client.events$.subscribe((event) => events.push(event));
    await client.command('ledger.open', { account }); // request 1
    const clientId = client.identity.clientId;

    proxy.setMode('toServer', 'hold');
    const deposit = () =>
      client.command<{ balance: number }>('ledger.deposit', { account, amount: 1 }).then(
        (result) => result.balance,
        (error: unknown) => error,
      );
    const inDoubt = Array.from({ length: IN_FLIGHT }, deposit); // requests 2..4, sent
    const queued = [deposit(), deposit()]; // the pipeline is full: never sent
    await eventually(
      () => proxy.heldBytes('toServer') === IN_FLIGHT * depositFrameBytes(account),
      `${IN_FLIGHT} deposits sent and held by the proxy`,
    );
    expect(client.identity.nextRequest).toBe(2 + IN_FLIGHT);
    return { client, events, clientId, inDoubt, queued };
  }

  async function evictByRegisteringAnotherClient(): Promise<void> {
    const raw = await RawClient.connect(service.port);
    try {
      registrationOf(await raw.register(randomClientId(), 'admin', PASSWORD));
    } finally {
      raw.destroy();
    }
  }

  it('when the node restarts and the session is evicted before the client comes back, then the in-doubt commands fail as outcome unknown and the queued ones run under a fresh session', async () => {
    const { client, events, clientId, inDoubt, queued } =
      await clientWithCommandsInDoubt('restart');

    proxy.accepting = false; // the client stays away until the session is gone
    await service.crash();
    proxy.cut(); // the held requests never reach the node
    proxy.setMode('toServer', 'forward');
    await service.restart();
    await evictByRegisteringAnotherClient();
    proxy.accepting = true;

    const failures = await Promise.all(inDoubt);
    expect(failures.map((failure) => failure instanceof OutcomeUnknownError)).toEqual([
      true,
      true,
      true,
    ]);
    expect(failures).toEqual([
      expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 2, reason: 'NO_SESSION' }),
      expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 3, reason: 'NO_SESSION' }),
      expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 4, reason: 'NO_SESSION' }),
    ]);
    expect((failures[0] as Error).message).toContain('request 2');
    expect(events).toContainEqual({
      type: 'session-lost',
      reason: 'NO_SESSION',
      clientId,
      requests: [2, 3, 4],
    });

    // Never sent, so not in doubt: numbered 1 and 2 under the new client id.
    await expect(Promise.all(queued)).resolves.toEqual([1, 2]);
    expect(client.identity.clientId).not.toBe(clientId);
    expect(client.identity.nextRequest).toBe(3);
    await expect(client.command('ledger.open', { account: 'after-restart' })).resolves.toEqual({
      account: 'after-restart',
      balance: 0,
    });
    // The in-doubt deposits were neither applied nor retried.
    await expect(client.query('ledger.balance', { account: 'restart' })).resolves.toEqual({
      balance: 2,
    });
    await client.close();
  });

  it('when the session is evicted while the client is connected, then the node tells it, and the same holds', async () => {
    const { client, events, clientId, inDoubt, queued } = await clientWithCommandsInDoubt('live');

    await evictByRegisteringAnotherClient();
    const failures = await Promise.all(inDoubt);
    proxy.setMode('toServer', 'forward');

    expect(failures).toEqual([
      expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 2, reason: 'EVICTED' }),
      expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 3, reason: 'EVICTED' }),
      expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 4, reason: 'EVICTED' }),
    ]);
    expect(events).toContainEqual({
      type: 'session-lost',
      reason: 'EVICTED',
      clientId,
      requests: [2, 3, 4],
    });
    await expect(Promise.all(queued)).resolves.toEqual([1, 2]);
    expect(client.identity.clientId).not.toBe(clientId);
    await expect(client.query('ledger.balance', { account: 'live' })).resolves.toEqual({
      balance: 2,
    });
    await client.close();
  });

  it('when the client comes back to a node that never knew its session, then the token is refused, the REGISTER finds a new entry, and the in-doubt commands fail as outcome unknown', async () => {
    const { client, events, clientId, inDoubt, queued } = await clientWithCommandsInDoubt('moved');
    const other = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: PASSWORD } });
    try {
      proxy.retarget(other.port); // a node with another data directory (and node secret)
      proxy.cut();
      proxy.setMode('toServer', 'forward');

      const failures = await Promise.all(inDoubt);
      expect(failures).toEqual([
        expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 2, reason: 'SESSION_RESET' }),
        expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 3, reason: 'SESSION_RESET' }),
        expect.objectContaining({ code: 'OUTCOME_UNKNOWN', request: 4, reason: 'SESSION_RESET' }),
      ]);
      expect(events).toContainEqual({
        type: 'session-lost',
        reason: 'SESSION_RESET',
        clientId,
        requests: [2, 3, 4],
      });
      // The new node has no such account: the queued deposits run there and are refused.
      await expect(Promise.all(queued)).resolves.toEqual([
        expect.objectContaining({ code: 'ACCOUNT_NOT_FOUND' }),
        expect.objectContaining({ code: 'ACCOUNT_NOT_FOUND' }),
      ]);
      expect(client.identity.clientId).not.toBe(clientId);
      expect(client.identity.nextRequest).toBe(3);
      await client.close();
    } finally {
      await other.cleanup();
    }
  });
});
