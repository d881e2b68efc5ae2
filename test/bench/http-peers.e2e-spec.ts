import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpOutcomeUnknownError, IdempotentHttpClient } from '@once/sdk';
import { killAllChildren } from '../../bench/bench-children';
import { type BuildSnapshot } from '../../bench/build-snapshot';
import { HttpDepositPeerServer } from '../../bench/http-deposit-peer-server';
import { RedisServerProcess } from '../../bench/redis-server-process';
import { ROOT } from '../support/node-program';

/**
 * The bench's HTTP peers, started through the bench's own code on a real
 * `redis-server` (AOF fsynced on every write; installed by
 * scripts/ensure-bench-servers.js) from dist/bench (built by `npm run build`):
 * the deposit made idempotent with `@node-idempotency/nestjs`, and the plain
 * one. They are what once's HTTP endpoints are compared with.
 */
const BUILD: BuildSnapshot = { dir: join(ROOT, 'dist'), nodeModules: join(ROOT, 'node_modules') };
const START_BOUND_MS = 90_000;

jest.setTimeout(60_000);

describe('the HTTP peers of the bench', () => {
  let workDir: string;
  let redis: RedisServerProcess;
  const peers: HttpDepositPeerServer[] = [];

  beforeAll(async () => {
    await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
    workDir = await mkdtemp(join(ROOT, 'bench', 'results', 'http-peers-e2e-'));
    redis = await RedisServerProcess.start(join(workDir, 'redis'));
  }, START_BOUND_MS);

  afterAll(async () => {
    await Promise.allSettled(peers.map((peer) => peer.stop()));
    await redis?.stop();
    killAllChildren();
    await rm(workDir, { recursive: true, force: true });
  });

  async function startPeer(kind: 'node-idempotency' | 'plain'): Promise<IdempotentHttpClient> {
    const peer = await HttpDepositPeerServer.start(BUILD, kind, redis.port);
    peers.push(peer);
    return clientOf(peer);
  }

  function clientOf(peer: HttpDepositPeerServer): IdempotentHttpClient {
    return new IdempotentHttpClient({ baseUrl: peer.baseUrl, delayMs: 10, delayMsMax: 100 });
  }

  /**
   * A deposit under `key` to a peer of `kind` that dies right after the
   * balance moved, before it answers; then the peer started again (same
   * Redis), ready for the retry.
   */
  async function depositThroughACrash(
    kind: 'node-idempotency' | 'plain',
    account: string,
  ): Promise<{ key: string; restarted: IdempotentHttpClient }> {
    const crashing = await HttpDepositPeerServer.start(BUILD, kind, redis.port, {
      crashOnAccount: account,
    });
    peers.push(crashing);
    const lost = await clientOf(crashing)
      .post('/ledger/deposit', { account, amount: 5 }, { retry: { attemptsMax: 1 } })
      .catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(HttpOutcomeUnknownError);
    await crashing.crash(); // it is gone already; this waits for its exit
    const restarted = await HttpDepositPeerServer.start(BUILD, kind, redis.port);
    peers.push(restarted);
    return { key: (lost as HttpOutcomeUnknownError).key, restarted: clientOf(restarted) };
  }

  const newAccount = () => `e2e-${Math.random().toString(16).slice(2)}`;

  /** A deposit of 5 to a new account, then `againAmount` sent under the same key. */
  async function depositTwiceUnderOneKey(client: IdempotentHttpClient, againAmount = 5) {
    const account = newAccount();
    const first = await client.post('/ledger/deposit', { account, amount: 5 });
    const again = await client.post(
      '/ledger/deposit',
      { account, amount: againAmount },
      { key: first.key },
    );
    return { account, first, again };
  }

  async function balanceOf(client: IdempotentHttpClient, account: string): Promise<number> {
    const { body } = await client.request(`/ledger/balance/${account}`, { method: 'GET' });
    return (JSON.parse(body) as { balance: number }).balance;
  }

  describe('@node-idempotency/nestjs over Redis', () => {
    let client: IdempotentHttpClient;
    beforeAll(async () => {
      client = await startPeer('node-idempotency');
    }, START_BOUND_MS);

    it('given a deposit answered once, when its key is sent again, then the first answer is replayed and the balance moved once', async () => {
      const { account, first, again } = await depositTwiceUnderOneKey(client);

      expect(first).toMatchObject({
        status: 201,
        body: '{"balance":5}',
        replayed: false,
        attempts: 1,
      });
      expect(again).toMatchObject({ status: 201, body: '{"balance":5}', replayed: true });
      expect(await balanceOf(client, account)).toBe(5);
    });

    it('given a used key, when another body is sent under it, then 422 and nothing moves', async () => {
      const { account, again: reused } = await depositTwiceUnderOneKey(client, 6);

      expect(reused).toMatchObject({ status: 422, attempts: 1 });
      expect(await balanceOf(client, account)).toBe(5);
    });
  });

  describe('a crash between the state change and the stored response', () => {
    it('given the node-idempotency peer killed right after the balance moved, when the deposit is retried under its key, then every retry is refused 409 (the key stays in progress) though the balance moved: the outcome stays unknown', async () => {
      // Given
      const account = newAccount();
      const { key, restarted } = await depositThroughACrash('node-idempotency', account);

      // When
      const retried = await restarted
        .post('/ledger/deposit', { account, amount: 5 }, { key, retry: { attemptsMax: 3 } })
        .catch((error: unknown) => error);

      // Then
      expect(retried).toBeInstanceOf(HttpOutcomeUnknownError);
      expect(retried).toMatchObject({ key, attempts: 3, status: 409 });
      expect(await balanceOf(restarted, account)).toBe(5);
    });

    it('given the plain peer killed right after the balance moved, when the deposit is retried, then it moves the balance a second time', async () => {
      // Given
      const account = newAccount();
      const { key, restarted } = await depositThroughACrash('plain', account);

      // When
      const retried = await restarted.post('/ledger/deposit', { account, amount: 5 }, { key });

      // Then
      expect(retried).toMatchObject({ status: 201, body: '{"balance":10}' });
      expect(await balanceOf(restarted, account)).toBe(10);
    });
  });

  describe('plain NestJS (no idempotency)', () => {
    let client: IdempotentHttpClient;
    beforeAll(async () => {
      client = await startPeer('plain');
    }, START_BOUND_MS);

    it('given a deposit, when its key is sent again, then the balance moves again: the baseline guarantees nothing', async () => {
      const { account, first, again } = await depositTwiceUnderOneKey(client);

      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again).toMatchObject({ body: '{"balance":10}', replayed: false });
      expect(await balanceOf(client, account)).toBe(10);
    });

    it('when a deposit is not valid, then 400', async () => {
      const refused = await client.post('/ledger/deposit', { account: newAccount(), amount: -1 });
      expect(refused).toMatchObject({ status: 400, attempts: 1 });
    });
  });
});
