import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ClientTCP } from '@nestjs/microservices';
import { firstValueFrom } from 'rxjs';
import { killAllChildren } from '../../bench/bench-children';
import { type BuildSnapshot } from '../../bench/build-snapshot';
import { DepositPeerServer, type DepositPeerStore } from '../../bench/deposit-peer-server';
import { checkExactlyOnce } from '../../bench/peer-exactly-once';
import { PostgresServerProcess } from '../../bench/postgres-server-process';
import { RedisServerProcess } from '../../bench/redis-server-process';
import { ROOT } from '../support/node-program';

/**
 * The bench's durable peers, started through the bench's own code on real
 * servers: `redis-server` with its AOF fsynced on every write, PostgreSQL 15
 * with synchronous commits (both installed by scripts/ensure-bench-servers.js,
 * which `npm run test:e2e` runs first), and the NestJS TCP peer of
 * dist/bench (built by `npm run build`). Their data directories sit under
 * the repository's bench/results, on a disk, as in the bench.
 */
const BUILD: BuildSnapshot = { dir: join(ROOT, 'dist'), nodeModules: join(ROOT, 'node_modules') };
const START_BOUND_MS = 90_000;

jest.setTimeout(60_000);

describe('the durable peers of the bench', () => {
  let workDir: string;
  let redis: RedisServerProcess;
  let postgres: PostgresServerProcess;
  const peers: DepositPeerServer[] = [];

  beforeAll(async () => {
    await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
    workDir = await mkdtemp(join(ROOT, 'bench', 'results', 'peers-e2e-'));
    redis = await RedisServerProcess.start(join(workDir, 'redis'));
    postgres = await PostgresServerProcess.start(join(workDir, 'pg'), workDir);
  }, START_BOUND_MS);

  afterAll(async () => {
    await Promise.allSettled(peers.map((peer) => peer.stop()));
    await Promise.allSettled([redis?.stop(), postgres?.stop()]);
    killAllChildren();
    await rm(workDir, { recursive: true, force: true });
  });

  async function startPeer(store: () => DepositPeerStore): Promise<DepositPeerServer> {
    const peer = await DepositPeerServer.start(BUILD, store());
    peers.push(peer);
    return peer;
  }

  const cases: [string, () => DepositPeerStore][] = [
    ['Redis (Lua script)', () => ({ kind: 'redis', port: redis.port })],
    [
      'PostgreSQL (plpgsql function)',
      () => ({ kind: 'pg', port: postgres.port, variant: 'function' }),
    ],
    [
      'PostgreSQL (client-side transaction)',
      () => ({ kind: 'pg', port: postgres.port, variant: 'transaction' }),
    ],
  ];

  describe.each(cases)('%s', (_name, store) => {
    let peer: DepositPeerServer;
    let client: ClientTCP;

    beforeAll(async () => {
      peer = await startPeer(store);
      client = new ClientTCP({ host: '127.0.0.1', port: peer.port });
      await client.connect();
    });

    afterAll(() => client.close());

    const send = <T>(pattern: string, data: object) =>
      firstValueFrom(client.send<T>(pattern, data));

    it('given a deposit answered once, when the same key is resent, then the balance moves once and the stored reply comes back', async () => {
      const account = `e2e-${Math.random().toString(16).slice(2)}`;
      const first = await send<string>('deposit', { key: `${account}-1`, account, amount: 5 });
      const second = await send<string>('deposit', { key: `${account}-2`, account, amount: 7 });

      const resent = await send<string>('deposit', { key: `${account}-1`, account, amount: 5 });

      expect([first, second]).toEqual(['{"ok":true,"balance":5}', '{"ok":true,"balance":12}']);
      expect(resent).toBe(first);
      expect(await send<number>('balance', { account })).toBe(12);
    });

    it('given a key sent twice at once, when both answer, then the balance moved once and both replies are the same', async () => {
      const account = `e2e-${Math.random().toString(16).slice(2)}`;
      const request = { key: `${account}-1`, account, amount: 3 };

      const replies = await Promise.all([send('deposit', request), send('deposit', request)]);

      expect(replies).toEqual(['{"ok":true,"balance":3}', '{"ok":true,"balance":3}']);
      expect(await send<number>('balance', { account })).toBe(3);
    });

    it("when the bench's check resends 1,000 keys, then it finds every balance moved once", async () => {
      const check = await checkExactlyOnce('e2e', peer.port, 1000);

      expect(check).toEqual({
        keys: 1000,
        balanceAfterDuplicates: 1000,
        balanceAfterResend: 1000,
        keysWithDifferentReplies: 0,
      });
    });
  });
});
