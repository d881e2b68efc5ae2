import { Operation, Status, randomClientId } from '@once/protocol';
import { RawClient, ServiceProcess, outcomeOf, registrationOf } from '@once/testing';
import { expectCommittedThenNotReady, runServiceToExit } from '../support/wire';

describe('given the reference service', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: 'pw' } });
  });
  afterAll(() => service.cleanup());

  it('when a second process opens the same data directory, then it exits 1 saying the directory is in use', async () => {
    const { code, output } = await runServiceToExit({ ONCE_DATA_DIR: service.dataDir });
    expect(code).toBe(1);
    expect(output).toMatch(/data directory .* is in use/);
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    expect(service.running).toBe(true);
  });

  it('when SIGTERM arrives with commands in flight, then they are answered, a snapshot is written and it exits 0', async () => {
    const client = randomClientId();
    const raw = await RawClient.connect(service.port);
    const { epoch } = registrationOf(await raw.register(client, 'admin', 'pw'));
    expect(
      outcomeOf(await raw.command(client, epoch, 1, 'ledger.open', { account: 'term' })),
    ).toMatchObject({ ok: true });
    for (let request = 2; request <= 9; request++) {
      raw.send(
        { operation: Operation.Command, client, session: epoch, request },
        JSON.stringify({ pattern: 'ledger.deposit', data: { account: 'term', amount: 1 } }),
      );
    }
    const first = await raw.next();
    expect(first.header.status).toBe(Status.Ok);
    const exit = service.stop();
    const answered = [first];
    for (;;) {
      const frame = await raw.next(10_000).catch(() => undefined);
      if (!frame) break;
      answered.push(frame);
    }
    expect(await exit).toBe(0);
    expectCommittedThenNotReady(answered, [2, 3, 4, 5, 6, 7, 8, 9]);
    expect(service.logs).toMatch(/snapshot at op \d+ (written|is current)/);

    await service.restart();
    expect(service.logs).toMatch(/snapshot restored at op \d+/);
    const again = await RawClient.connect(service.port);
    const resumed = registrationOf(await again.register(client, 'admin', 'pw'));
    expect(resumed.watermark).toBe(1 + answered.length);
    const balance = outcomeOf(
      await again.query(client, resumed.epoch, 'ledger.balance', { account: 'term' }),
    );
    expect(balance).toEqual({ ok: true, result: { balance: answered.length } });
    raw.destroy();
    again.destroy();
  });
});

describe('given invalid settings', () => {
  it('when the service starts, then it exits 2 with a message naming the setting', async () => {
    const { code, output } = await runServiceToExit({
      ONCE_RING: '0',
      ONCE_DATA_DIR: '/nonexistent/never-created',
    });
    expect(code).toBe(2);
    expect(output).toMatch(/invalid setting: .*ONCE_RING.*ring must be an integer from 1 to 1024/);
  });
});

describe('given a host reachable from other machines (ONCE_HOST=0.0.0.0)', () => {
  it('when the service starts without an admin password, then it refuses: exit 2, ADMIN_PASSWORD_REQUIRED, naming the settings to use', async () => {
    const { code, output } = await runServiceToExit({
      ONCE_HOST: '0.0.0.0',
      ONCE_DATA_DIR: '/nonexistent/never-created',
    });
    expect(code).toBe(2);
    expect(output).toMatch(/ADMIN_PASSWORD_REQUIRED/);
    expect(output).toMatch(/ONCE_ADMIN_PASSWORD_FILE/);
    expect(output).not.toMatch(/\n\s+at /);
  });
});
