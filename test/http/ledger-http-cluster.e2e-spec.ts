import { OnceCluster, freePorts } from '@once/testing';
import { IdempotentHttpClient } from '@once/sdk';
import { ADMIN_BASIC_AUTH as AUTH, ADMIN_PASSWORD } from '../support/wire';

jest.setTimeout(240_000);

/**
 * The ledger's HTTP API on three cluster nodes: callers reach any node
 * through the client helper; a follower answers 503 naming the leader, whose
 * address the helper maps to its HTTP URL. The leader dies (SIGKILL) with
 * deposits in flight.
 */
describe('given a three-node cluster serving the ledger over HTTP', () => {
  let cluster: OnceCluster;
  let httpUrls: string[];

  beforeAll(async () => {
    const httpPorts = await freePorts(3);
    httpUrls = httpPorts.map((port) => `http://127.0.0.1:${port}`);
    cluster = await OnceCluster.start({
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
      nodeEnv: httpPorts.map((port) => ({ ONCE_HTTP_PORT: String(port) })),
    });
  });
  afterAll(async () => {
    await cluster?.cleanup();
  });

  /** A client that starts at node `entry` and follows `Once-Leader` to the leader's HTTP URL. */
  function clientThrough(entry: number): IdempotentHttpClient {
    return new IdempotentHttpClient({
      baseUrl: httpUrls[entry],
      headers: { authorization: AUTH },
      attemptsMax: 400,
      delayMs: 20,
      delayMsMax: 500,
      leaderUrl: Object.fromEntries(cluster.advertised.map((address, i) => [address, httpUrls[i]])),
    });
  }

  it('when a follower is asked, then it answers 503 with Retry-After and the leader, and journals nothing', async () => {
    const leader = await cluster.leader();
    const follower = (leader + 1) % 3;
    const response = await fetch(`${httpUrls[follower]}/ledger/open`, {
      method: 'POST',
      headers: {
        authorization: AUTH,
        'content-type': 'application/json',
        'idempotency-key': '"f-1"',
      },
      body: JSON.stringify({ account: 'f' }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('once-leader')).toBe(cluster.advertised[leader]);
    expect(await response.json()).toMatchObject({ code: 'NOT_LEADER' });
  });

  it('when the leader is SIGKILLed with deposits in flight, then every deposit is answered once and counted once', async () => {
    // Given accounts, and callers entering through a node that is not the leader
    const leader = await cluster.leader();
    const entry = (leader + 1) % 3;
    const client = clientThrough(entry);
    const accounts = ['c0', 'c1', 'c2'];
    for (const account of accounts) {
      expect((await client.post('/ledger/open', { account })).status).toBe(200);
    }
    const perCaller = 20;
    const answered: Array<{ account: string; amount: number }> = [];
    let reachedKillPoint!: () => void;
    const killPoint = new Promise<void>((resolve) => (reachedKillPoint = resolve));
    const callers = Array.from({ length: 32 }, async (_, caller) => {
      for (let n = 0; n < perCaller; n++) {
        const account = accounts[(caller + n) % accounts.length];
        const amount = 1 + ((caller + n) % 5);
        const response = await client.post('/ledger/deposit', { account, amount });
        expect(response.status).toBe(200);
        answered.push({ account, amount });
        if (answered.length === 150) reachedKillPoint();
      }
    });

    // When the leader is SIGKILLed mid-load
    await killPoint;
    await cluster.kill(leader);
    await Promise.all(callers);

    // Then every deposit was answered, and each counted exactly once on the new leader
    expect(answered).toHaveLength(32 * perCaller);
    const newLeader = await cluster.leader(60_000);
    expect(newLeader).not.toBe(leader);
    for (const account of accounts) {
      const expected = answered
        .filter((deposit) => deposit.account === account)
        .reduce((sum, deposit) => sum + deposit.amount, 0);
      const response = await fetch(`${httpUrls[newLeader]}/ledger/balance?account=${account}`, {
        headers: { authorization: AUTH },
      });
      expect(await response.json()).toEqual({ balance: expected });
    }
  });
});
