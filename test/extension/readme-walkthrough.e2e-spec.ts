import { join } from 'node:path';
import { OnceClient } from '@once/sdk';
import { ServiceProcess } from '@once/testing';

/** The README's "Write your own module" step 8, as written there. */
describe('given the ledger module served by the test harness', () => {
  let service: ServiceProcess;
  let client: OnceClient | undefined;
  beforeAll(async () => {
    service = await ServiceProcess.start({
      modules: [
        {
          path: join(__dirname, '../../apps/server/src/ledger/ledger.module.ts'),
          export: 'LedgerModule',
        },
      ],
      users: { alice: 'pw' },
    });
  });
  afterAll(async () => {
    await client?.close({ force: true });
    await service.cleanup();
  });

  it('when the service is killed while a deposit is in flight, then the deposit is settled exactly once', async () => {
    client = await OnceClient.connect({ port: service.port, username: 'alice', password: 'pw' });
    await client.command('ledger.open', { account: 'a' });
    const deposit = client.command('ledger.deposit', { account: 'a', amount: 1 });
    await service.crash();
    await service.restart();
    await deposit;
    expect(await client.query('ledger.balance', { account: 'a' })).toEqual({ balance: 1 });
  });
});
