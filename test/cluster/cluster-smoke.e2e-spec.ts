import { OnceClient } from '@once/sdk';
import { OnceCluster } from '@once/testing';
import { ADMIN_PASSWORD, accountName } from '../support/wire';

jest.setTimeout(180_000);

describe('given three NATS servers and three once nodes', () => {
  let cluster: OnceCluster;
  beforeAll(async () => {
    cluster = await OnceCluster.start({ env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD } });
  });
  afterAll(() => cluster?.cleanup());

  it('when a client deposits through the cluster and the leader is SIGKILLed, then the client goes on at the new leader with nothing lost', async () => {
    const leader = await cluster.leader();
    const client = await OnceClient.connect({
      nodes: cluster.addresses,
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
    try {
      const account = accountName('cl');
      await client.command('ledger.open', { account });
      for (let i = 0; i < 20; i++) await client.command('ledger.deposit', { account, amount: 1 });
      await cluster.kill(leader);
      for (let i = 0; i < 20; i++) await client.command('ledger.deposit', { account, amount: 1 });
      await expect(client.query('ledger.balance', { account })).resolves.toEqual({ balance: 40 });
      const next = await cluster.leader();
      expect(next).not.toBe(leader);
    } finally {
      await client.close();
    }
  });
});
