import { type OnceClientEvent, OnceClient } from '@once/sdk';
import { ServiceProcess, TcpProxy, eventually } from '@once/testing';

const PASSWORD = 'pw';
const TOTAL = 300;
const IN_FLIGHT = 8;
/** Settled deposits after which the service is killed; each leaves ≥ IN_FLIGHT deposits to go. */
const CRASH_AFTER = [40, 120, 200];

/**
 * The client reaches the service through a proxy so that each crash lands at
 * an exact point: the proxy holds the replies until the SDK has IN_FLIGHT
 * deposits sent and unanswered (most of them committed, their replies never
 * delivered), then the service is SIGKILLed.
 */
describe('given a client pipelining deposits and a service SIGKILLed three times during the run', () => {
  let service: ServiceProcess;
  let proxy: TcpProxy;
  beforeAll(async () => {
    service = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: PASSWORD } });
    proxy = await TcpProxy.start({ targetPort: service.port });
  });
  afterAll(async () => {
    await proxy.close();
    await service.cleanup();
  });

  it('when the client reconnects and resends after each restart, then every deposit is applied exactly once and none is rejected', async () => {
    const client = await OnceClient.connect({
      port: proxy.port,
      username: 'admin',
      password: PASSWORD,
      inFlightMax: IN_FLIGHT,
      reconnect: { initialDelayMs: 10, delayMsMax: 200 },
    });
    const events: OnceClientEvent[] = [];
    client.events$.subscribe((event) => events.push(event));
    await client.command('ledger.open', { account: 'crash' });

    let settled = 0;
    const rejected: unknown[] = [];
    const deposits = Array.from({ length: TOTAL }, () =>
      client.command<{ balance: number }>('ledger.deposit', { account: 'crash', amount: 1 }).then(
        (result) => {
          settled++;
          return result.balance;
        },
        (error: unknown) => {
          settled++;
          rejected.push(error);
          return undefined;
        },
      ),
    );
    /** Deposits numbered (sent) and not settled: request 1 was the `ledger.open`. */
    const inFlight = () => client.identity.nextRequest - 2 - settled;

    const crashes: Array<{ settled: number; inFlight: number }> = [];
    for (const threshold of CRASH_AFTER) {
      await eventually(() => settled >= threshold, `${threshold} deposits settled`);
      proxy.setMode('toClient', 'hold');
      await eventually(() => inFlight() === IN_FLIGHT, `${IN_FLIGHT} deposits in flight`);
      crashes.push({ settled, inFlight: inFlight() });
      await service.crash();
      proxy.cut(); // what the proxy held dies with the connections
      proxy.setMode('toClient', 'forward');
      await service.restart();
    }
    const balances = await Promise.all(deposits);

    expect(rejected).toEqual([]);
    expect(crashes).toHaveLength(3);
    for (const crash of crashes) {
      expect(crash.inFlight).toBe(IN_FLIGHT);
      expect(crash.settled).toBeLessThan(TOTAL);
    }
    // Each deposit's result is the balance right after it: 1..300 once each means
    // each was applied exactly once, in request order.
    expect(balances).toEqual(Array.from({ length: TOTAL }, (_, index) => index + 1));
    await expect(client.query('ledger.balance', { account: 'crash' })).resolves.toEqual({
      balance: TOTAL,
    });
    // No request number was skipped or reused: 1 open + 300 deposits.
    expect(client.identity).toMatchObject({ nextRequest: TOTAL + 2, watermark: TOTAL + 1 });
    expect(events.filter((event) => event.type === 'session-lost')).toEqual([]);
    expect(events.filter((event) => event.type === 'resumed').length).toBeGreaterThanOrEqual(
      CRASH_AFTER.length,
    );
    await client.close({ logout: true });
  });

  it('when the service is killed directly, with no proxy in between, then the deposits still apply exactly once', async () => {
    const client = await OnceClient.connect({
      port: service.port,
      username: 'admin',
      password: PASSWORD,
      inFlightMax: IN_FLIGHT,
      reconnect: { initialDelayMs: 10, delayMsMax: 200 },
    });
    await client.command('ledger.open', { account: 'direct' });
    let settled = 0;
    const deposits = Array.from({ length: TOTAL }, () =>
      client
        .command<{ balance: number }>('ledger.deposit', { account: 'direct', amount: 1 })
        .finally(() => settled++),
    );
    for (const threshold of CRASH_AFTER) {
      await eventually(() => settled >= threshold, `${threshold} deposits settled`);
      await service.crash();
      await service.restart();
    }
    const balances = (await Promise.all(deposits)).map((result) => result.balance);

    expect(balances).toEqual(Array.from({ length: TOTAL }, (_, index) => index + 1));
    await expect(client.query('ledger.balance', { account: 'direct' })).resolves.toEqual({
      balance: TOTAL,
    });
    expect(client.identity.nextRequest).toBe(TOTAL + 2);
    await client.close({ logout: true });
  });
});
