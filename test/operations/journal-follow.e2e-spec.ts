import { OnceClient } from '@once/sdk';
import { ServiceProcess, freePorts } from '@once/testing';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const BIN = join(ROOT, 'libs/cli/dist/main.js');
const PASSWORD = 'pw';
const USER_PASSWORD = 'dora-follow-secret-7';

interface FollowedEntry {
  readonly op: number;
  readonly kind: string;
  readonly pattern: string | null;
  readonly body: unknown;
}

/** A running `once journal tail --follow --json`: its entries as they arrive, its notes, its exit. */
class Follower {
  readonly entries: FollowedEntry[] = [];
  stdout = '';
  stderr = '';
  private readonly child: ChildProcess;
  private readonly exit: Promise<number | null>;

  constructor(args: readonly string[]) {
    this.child = spawn(process.execPath, [BIN, 'journal', 'tail', '--follow', '--json', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.entries.push(JSON.parse(line) as FollowedEntry);
    });
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exit = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Resolves once an entry satisfying `match` was printed; fails after 20 s. */
  async until(match: (entry: FollowedEntry) => boolean): Promise<FollowedEntry> {
    for (let waited = 0; waited < 20_000; waited += 25) {
      const found = this.entries.find(match);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no such entry followed; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
  }

  /** SIGINT, as a person's Ctrl-C; resolves with the exit code. */
  interrupt(): Promise<number | null> {
    this.child.kill('SIGINT');
    return this.exit;
  }
}

function once(...args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, timeout: 30_000 }, (error, stdout) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    );
  });
}

describe('given a running service whose metrics listener serves the journal feed', () => {
  let service: ServiceProcess;
  let metricsUrl: string;
  let client: OnceClient;
  let tokenDir: string;
  /** Where the feed is and the file of its credential, as the CLI takes them. */
  let feed: string[];

  beforeAll(async () => {
    const [metricsPort] = await freePorts(1);
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    tokenDir = await mkdtemp(join(tmpdir(), 'once-follow-'));
    const tokenFile = join(tokenDir, 'operations-token');
    await writeFile(tokenFile, randomBytes(24).toString('hex'), { mode: 0o600 });
    feed = ['--metrics-url', metricsUrl, '--operations-token-file', tokenFile];
    service = await ServiceProcess.start({
      env: {
        ONCE_ADMIN_PASSWORD: PASSWORD,
        ONCE_METRICS_PORT: String(metricsPort),
        ONCE_JOURNAL_FEED: 'on',
        ONCE_OPERATIONS_TOKEN_FILE: tokenFile,
      },
    });
    client = await OnceClient.connect({
      port: service.port,
      username: 'admin',
      password: PASSWORD,
    });
    await client.command('ledger.open', { account: 'follow' });
  }, 60_000);

  afterAll(async () => {
    await client.close();
    await service.cleanup();
    await rm(tokenDir, { recursive: true, force: true });
  });

  it('when `journal tail --metrics-url` reads the running node, then it gets its last entries without stopping it', async () => {
    // When
    const run = await once('journal', 'tail', '-n', '1', ...feed, '--json');

    // Then
    expect(run.code).toBe(0);
    const tail = JSON.parse(run.stdout) as { lastOp: number; entries: FollowedEntry[] };
    expect(tail.entries).toHaveLength(1);
    expect(tail.entries[0]).toMatchObject({
      op: tail.lastOp,
      kind: 'COMMAND',
      pattern: 'ledger.open',
    });
  });

  it('when commands commit while `--follow` runs, then each is printed once, in op order, credentials redacted', async () => {
    // Given
    const follower = new Follower(['-n', '1', ...feed]);
    await follower.until((entry) => entry.pattern === 'ledger.open');

    // When
    await client.command('users.create', { username: 'dora', password: USER_PASSWORD });
    for (let amount = 1; amount <= 3; amount++) {
      await client.command('ledger.deposit', { account: 'follow', amount });
    }
    await follower.until(
      (entry) =>
        entry.pattern === 'ledger.deposit' && (entry.body as { amount: number }).amount === 3,
    );

    // Then
    expect(await follower.interrupt()).toBe(0);
    const ops = follower.entries.map((entry) => entry.op);
    expect(ops).toEqual(Array.from({ length: ops.length }, (_, i) => ops[0] + i));
    // Each command's reply checksum is journaled (REPLY_CHECK, a system entry) with the next write.
    expect(follower.entries.map((entry) => entry.pattern ?? entry.kind)).toEqual([
      'ledger.open',
      'REPLY_CHECK',
      'users.create',
      'REPLY_CHECK',
      'ledger.deposit',
      'REPLY_CHECK',
      'ledger.deposit',
      'REPLY_CHECK',
      'ledger.deposit',
    ]);
    for (const [index, entry] of follower.entries.entries()) {
      if (entry.kind !== 'REPLY_CHECK') continue;
      expect(entry).toMatchObject({
        pattern: null,
        body: { replies: [{ op: follower.entries[index - 1].op }] },
      });
    }
    // users.create journals a salted hash of the password: both are redacted all the same.
    expect(follower.entries.find((entry) => entry.pattern === 'users.create')?.body).toEqual({
      username: 'dora',
      hash: '[redacted]',
      salt: '[redacted]',
    });
    expect(follower.stdout + follower.stderr).not.toContain(USER_PASSWORD);
  });

  it('when the node is killed and restarted under a follower, then it waits, says so, and goes on after the last op it printed', async () => {
    // Given
    const follower = new Follower(['-n', '1', ...feed]);
    const last = await follower.until(() => true);

    // When
    await service.crash();
    await service.restart();
    const again = await OnceClient.connect({
      port: service.port,
      username: 'admin',
      password: PASSWORD,
    });
    try {
      await again.command('ledger.deposit', { account: 'follow', amount: 40 });
    } finally {
      await again.close();
    }
    await follower.until(
      (entry) =>
        entry.pattern === 'ledger.deposit' && (entry.body as { amount: number }).amount === 40,
    );

    // Then
    expect(await follower.interrupt()).toBe(0);
    expect(follower.stderr).toMatch(/cannot reach .*; waiting for it/);
    const ops = follower.entries.map((entry) => entry.op);
    expect(ops[0]).toBe(last.op);
    expect(ops).toEqual(Array.from({ length: ops.length }, (_, i) => last.op + i));
    expect(follower.stderr).toMatch(/answers again/);
  });
});

describe('given a running service with the journal feed off (the default)', () => {
  let service: ServiceProcess;
  let metricsPort: number;

  beforeAll(async () => {
    [metricsPort] = await freePorts(1);
    service = await ServiceProcess.start({
      env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_METRICS_PORT: String(metricsPort) },
    });
  }, 60_000);
  afterAll(() => service.cleanup());

  it('when `journal tail --follow` asks it, then the CLI fails at once saying how to turn the feed on', async () => {
    // When
    const run = await once(
      'journal',
      'tail',
      '--follow',
      '--metrics-url',
      `http://127.0.0.1:${metricsPort}/metrics`,
      '--json',
    );

    // Then
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: { code: 'JOURNAL_FEED_OFF', message: expect.stringMatching(/ONCE_JOURNAL_FEED=on/) },
    });
    const direct = await fetch(`http://127.0.0.1:${metricsPort}/journal`);
    expect(direct.status).toBe(404);
  });
});
