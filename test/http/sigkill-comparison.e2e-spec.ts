import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpOutcomeUnknownError, IdempotentHttpClient } from '@once/sdk';
import { freePorts, type ServiceProcess } from '@once/testing';
import { killAllChildren } from '../../bench/bench-children';
import { type BuildSnapshot } from '../../bench/build-snapshot';
import { HttpDepositPeerServer } from '../../bench/http-deposit-peer-server';
import { RedisServerProcess } from '../../bench/redis-server-process';
import { ROOT } from '../support/node-program';
import { ADMIN_BASIC_AUTH as AUTH, startService } from '../support/wire';
import { HttpLedgerProcess } from './support/http-ledger-process';

jest.setTimeout(300_000);

const BUILD: BuildSnapshot = { dir: join(ROOT, 'dist'), nodeModules: join(ROOT, 'node_modules') };
const CALLERS = 64;
const DEPOSITS_PER_CALLER = 20;
const ANSWERED_AT_KILL = 300;
const ACCOUNTS = ['k0', 'k1', 'k2', 'k3'];

/** A deposit service under test: where it listens, and how it dies and comes back. */
interface DepositTarget {
  readonly baseUrl: string;
  readonly headers: Record<string, string>;
  readonly depositStatus: number;
  balance(account: string): Promise<number>;
  crash(): Promise<void>;
  restart(): Promise<void>;
}

/** What became of every deposit of {@link depositsThroughAKill}. */
interface KillOutcome {
  /** Deposits answered with the deposit status, and whether that answer was a replay. */
  readonly answered: Array<{ account: string; amount: number; replayed: boolean }>;
  /** Deposits whose every retry failed (the key stuck in progress, say): their outcome is unknown. */
  readonly unknown: Array<{ account: string; amount: number; status: number | undefined }>;
  /** Each account's balance after all of it, against the sum of the deposits answered. */
  readonly balances: Array<{ account: string; actual: number; answeredSum: number }>;
}

/**
 * The scenario: 64 callers deposit through the client helper, each deposit
 * with its own key; the service is SIGKILLed once 300 were answered, with
 * the others in flight (some committed, not yet answered), and started again
 * on its data; every caller retries with its key until answered.
 */
async function depositsThroughAKill(
  target: DepositTarget,
  retry: { attemptsMax: number; delayMsMax: number },
): Promise<KillOutcome> {
  const client = new IdempotentHttpClient({
    baseUrl: target.baseUrl,
    headers: target.headers,
    delayMs: 20,
    ...retry,
  });
  const before = new Map<string, number>();
  for (const account of ACCOUNTS) before.set(account, await target.balance(account));
  const answered: KillOutcome['answered'] = [];
  const unknown: KillOutcome['unknown'] = [];
  let reachedKillPoint!: () => void;
  const killPoint = new Promise<void>((resolve) => (reachedKillPoint = resolve));
  const callers = Array.from({ length: CALLERS }, async (_, caller) => {
    for (let n = 0; n < DEPOSITS_PER_CALLER; n++) {
      const account = ACCOUNTS[(caller + n) % ACCOUNTS.length];
      const amount = 1 + ((caller * DEPOSITS_PER_CALLER + n) % 7);
      try {
        const response = await client.post('/ledger/deposit', { account, amount });
        expect(response.status).toBe(target.depositStatus);
        answered.push({ account, amount, replayed: response.replayed });
      } catch (error) {
        if (!(error instanceof HttpOutcomeUnknownError)) throw error;
        unknown.push({ account, amount, status: error.status });
      }
      if (answered.length + unknown.length === ANSWERED_AT_KILL) reachedKillPoint();
    }
  });
  await killPoint;
  await target.crash();
  await target.restart();
  await Promise.all(callers);
  const balances: KillOutcome['balances'] = [];
  for (const account of ACCOUNTS) {
    const answeredSum = answered
      .filter((deposit) => deposit.account === account)
      .reduce((sum, deposit) => sum + deposit.amount, 0);
    balances.push({
      account,
      actual: (await target.balance(account)) - before.get(account)!,
      answeredSum,
    });
  }
  return { answered, unknown, balances };
}

/** One line of the comparison: what a caller can know after the crash. */
function report(name: string, outcome: KillOutcome): string {
  const moved = outcome.balances.reduce((sum, b) => sum + b.actual, 0);
  const answeredSum = outcome.balances.reduce((sum, b) => sum + b.answeredSum, 0);
  const unknownSum = outcome.unknown.reduce((sum, d) => sum + d.amount, 0);
  const statuses = [...new Set(outcome.unknown.map((d) => d.status ?? 'no answer'))].join(', ');
  return (
    `${name}: ${outcome.answered.length} deposits answered ` +
    `(${outcome.answered.filter((d) => d.replayed).length} of them replays of an answer lost in the crash), ` +
    `${outcome.unknown.length} never answered (last status: ${statuses || '-'}), ` +
    `balances moved by ${moved} for ${answeredSum} answered and ${unknownSum} unknown`
  );
}

describe('given deposits in flight over HTTP, each with its own Idempotency-Key, when the service is SIGKILLed and started again', () => {
  it('then once answers every retry with its first answer and counts every deposit exactly once', async () => {
    // Given the reference service's ledger over HTTP, with its accounts
    const [httpPort] = await freePorts(1);
    const service: ServiceProcess = await startService({ ONCE_HTTP_PORT: String(httpPort) });
    try {
      const baseUrl = `http://127.0.0.1:${httpPort}`;
      const headers = { authorization: AUTH };
      const opener = new IdempotentHttpClient({ baseUrl, headers });
      for (const account of ACCOUNTS) {
        expect((await opener.post('/ledger/open', { account })).status).toBe(200);
      }
      const target: DepositTarget = {
        baseUrl,
        headers,
        depositStatus: 200,
        balance: async (account) => {
          const answer = await fetch(`${baseUrl}/ledger/balance?account=${account}`, { headers });
          return ((await answer.json()) as { balance: number }).balance;
        },
        crash: () => service.crash(),
        restart: () => service.restart(),
      };

      // When
      const outcome = await depositsThroughAKill(target, { attemptsMax: 400, delayMsMax: 500 });
      console.log(report('once', outcome));

      // Then nothing is unknown, nothing lost, nothing doubled
      expect(outcome.unknown).toEqual([]);
      expect(outcome.answered).toHaveLength(CALLERS * DEPOSITS_PER_CALLER);
      for (const { actual, answeredSum } of outcome.balances) expect(actual).toBe(answeredSum);
    } finally {
      await service.cleanup();
    }
  });

  describe('and the same against @node-idempotency/nestjs over Redis (reported, not asserted: the comparison the README states)', () => {
    let workDir: string;
    let redis: RedisServerProcess;
    const peers: HttpDepositPeerServer[] = [];

    beforeAll(async () => {
      await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
      workDir = await mkdtemp(join(ROOT, 'bench', 'results', 'http-kill-e2e-'));
      redis = await RedisServerProcess.start(join(workDir, 'redis'));
    }, 90_000);
    afterAll(async () => {
      await Promise.allSettled(peers.map((peer) => peer.stop()));
      await redis?.stop();
      killAllChildren();
      await rm(workDir, { recursive: true, force: true });
    });

    it('then whatever it does is reported', async () => {
      // Given the NestJS peer whose deposit @node-idempotency/nestjs makes idempotent
      let peer = await HttpDepositPeerServer.start(BUILD, 'node-idempotency', redis.port);
      peers.push(peer);
      const baseUrl = peer.baseUrl;
      const target: DepositTarget = {
        baseUrl,
        headers: {},
        depositStatus: 201,
        balance: async (account) => {
          const answer = await fetch(`${baseUrl}/ledger/balance/${account}`);
          return ((await answer.json()) as { balance: number }).balance;
        },
        crash: () => peer.crash(),
        restart: async () => {
          peer = await HttpDepositPeerServer.start(BUILD, 'node-idempotency', redis.port, {
            port: Number(new URL(baseUrl).port),
          });
          peers.push(peer);
        },
      };

      // When (fewer retries: a key left in progress answers 409 until its TTL)
      const outcome = await depositsThroughAKill(target, { attemptsMax: 8, delayMsMax: 200 });

      // Then
      console.log(report('@node-idempotency/nestjs over Redis', outcome));
      expect(outcome.answered.length + outcome.unknown.length).toBe(CALLERS * DEPOSITS_PER_CALLER);
    });
  });
});

describe('given a deposit whose service dies right after it changed the balance, before it answers', () => {
  it('then with once the retry under its key gets the first answer, replayed, and the balance moved once', async () => {
    // Given the HTTP ledger app, set to SIGKILL itself in the deposit's apply step (entry durable, state changed, no response)
    const root = await mkdtemp(join(tmpdir(), 'once-http-window-'));
    const marker = join(root, 'crash-now');
    const dataDir = join(root, 'data');
    let app: HttpLedgerProcess | undefined;
    try {
      await writeFile(marker, '');
      app = await HttpLedgerProcess.start('express', dataDir, { HTTP_LEDGER_CRASH_MARKER: marker });
      const client = new IdempotentHttpClient({ baseUrl: app.url, delayMs: 10, delayMsMax: 100 });
      const lost = await client
        .post('/ledger/accounts/w-1/deposit', { amount: 5 }, { retry: { attemptsMax: 1 } })
        .catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(HttpOutcomeUnknownError);
      await app.kill(); // gone already; this waits for its exit

      // When it starts again and the deposit is retried under its key
      app = await HttpLedgerProcess.start('express', dataDir);
      const retried = await new IdempotentHttpClient({ baseUrl: app.url }).post(
        '/ledger/accounts/w-1/deposit',
        { amount: 5 },
        { key: (lost as HttpOutcomeUnknownError).key },
      );

      // Then the first answer, never sent, is the answer; the balance moved once
      expect(retried).toMatchObject({ status: 201, replayed: true });
      expect(JSON.parse(retried.body)).toMatchObject({ account: 'w-1', balance: 5 });
      const balance = await (await fetch(`${app.url}/ledger/accounts/w-1`)).json();
      expect(balance).toMatchObject({ balance: 5, applied: 1 });
    } finally {
      await app?.kill();
      await rm(root, { recursive: true, force: true });
    }
  });
});
