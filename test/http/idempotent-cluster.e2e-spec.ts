import { join } from 'node:path';
import { OnceCluster, eventually } from '@once/testing';
import { HTTP_URL_MARK } from '../fixtures/http-ledger/http-url-mark';
import { type HttpLedgerAnswer, postJson, readAccount } from './support/http-ledger-client';

jest.setTimeout(300_000);

const MAIN = join(__dirname, '../fixtures/http-ledger/http-ledger-cluster.main.ts');

function deposit(url: string, key: string): Promise<HttpLedgerAnswer> {
  return postJson(`${url}/ledger/accounts/k-1/deposit`, { amount: 30 }, { 'idempotency-key': key });
}

describe('given the HTTP ledger as three cluster nodes on one NATS server', () => {
  let cluster: OnceCluster;
  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsServers: 1,
      nodes: 3,
      replicas: 1,
      service: { entry: MAIN },
    });
  });
  afterAll(() => cluster?.cleanup());

  /** Node `index`'s HTTP URL, as it printed it once it served. */
  async function urlOf(index: number): Promise<string> {
    let url: string | undefined;
    await eventually(() => {
      url = new RegExp(`${HTTP_URL_MARK}(\\S+)`).exec(cluster.nodes[index].logs)?.[1];
      return url !== undefined;
    }, `node ${index} to print its HTTP URL`);
    return url!;
  }

  let first: HttpLedgerAnswer;

  it("when a follower is sent an exactly-once request, then it answers 503 NOT_LEADER with Retry-After and the leader's address in Once-Leader, and journals nothing", async () => {
    const leader = await cluster.leader();
    const follower = (leader + 1) % 3;
    const answer = await deposit(await urlOf(follower), '"cluster-1"');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 'NOT_LEADER' });
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('once-leader')).toBe(cluster.advertised[leader]);

    // The leader never saw the key: the same key is a first request there.
    first = await deposit(await urlOf(leader), '"cluster-1"');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
  });

  it('when the leader is killed after answering, then the retry on the new leader gets the first response, replayed, and the state changed once', async () => {
    const old = await cluster.leader();
    await cluster.kill(old);
    const leader = await cluster.leader();
    expect(leader).not.toBe(old);
    const url = await urlOf(leader);
    const retry = await deposit(url, '"cluster-1"');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.equals(first.body)).toBe(true);
    const balance = await readAccount(url, 'k-1');
    expect(balance.balance).toBe(30);
  });
});
