import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Platform } from './support/http-ledger-app';
import { postJson, readAccount } from './support/http-ledger-client';
import { HttpLedgerProcess } from './support/http-ledger-process';

// Each start compiles the app as it loads: on a loaded machine, tens of seconds.
jest.setTimeout(300_000);

function deposit(url: string, key: string) {
  return postJson(`${url}/ledger/accounts/c-1/deposit`, { amount: 25 }, { 'idempotency-key': key });
}

describe.each<Platform>(['express', 'fastify'])(
  'given the HTTP ledger app on %s as a child process on a LevelDB data directory',
  (platform) => {
    let root: string;
    let app: HttpLedgerProcess | undefined;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), `once-http-crash-${platform}-`));
    });
    afterAll(async () => {
      await app?.kill();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('when the app is killed (no graceful stop, no snapshot) after answering a request, then after a restart the retry gets the first response, replayed from the journal, and the state changed once', async () => {
      const dataDir = join(root, 'data');
      app = await HttpLedgerProcess.start(platform, dataDir);
      const first = await deposit(app.url, '"crash-1"');
      expect(first.status).toBe(201);
      expect(first.replayed).toBe('false');

      await app.kill();
      app = await HttpLedgerProcess.start(platform, dataDir);

      const retry = await deposit(app.url, '"crash-1"');
      expect(retry.status).toBe(201);
      expect(retry.replayed).toBe('true');
      expect(retry.body.equals(first.body)).toBe(true);
      const balance = await readAccount(app.url, 'c-1');
      expect(balance.balance).toBe(25);
    });
  },
);
