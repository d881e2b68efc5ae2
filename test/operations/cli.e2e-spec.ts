import { type Frame } from '@once/protocol';
import { checksum } from '@once/protocol/internal';
import { type ServiceProcess, bodyJson } from '@once/testing';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_PASSWORD, Connections, TestSession, startService } from '../support/wire';

const ROOT = join(__dirname, '../..');
const BIN = join(ROOT, 'libs/cli/dist/main.js');
const APP = join(ROOT, 'dist/apps/server/src/app.module.js');
const NEW_USER_PASSWORD = 'carol-cli-secret-9';

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Every line the CLI printed in this file, to check that no credential ever appears. */
const printed: string[] = [];

/** Runs the built `once` bin from the repository root (so its default --app is the reference service). */
function once(...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        printed.push(stdout, stderr);
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** The `--json` document of a run that must succeed. */
async function json<T>(...args: string[]): Promise<T> {
  const run = await once(...args, '--json');
  if (run.code !== 0)
    throw new Error(`once ${args.join(' ')} exited ${run.code}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

interface ReplyJson {
  readonly status: string;
  readonly op: number;
  readonly watermark: number;
  readonly body: unknown;
}

describe('given the reference service run with a session that deposited twelve times, then killed', () => {
  let service: ServiceProcess;
  let connections: Connections;
  let session: TestSession;
  let dataDir: string;
  /** The replies of requests 1.. (ledger.open, then the deposits). */
  const replies: Frame[] = [];
  /** The reply of the last request, users.create. */
  let created: Frame;
  let livePing: { commit: number };

  beforeAll(async () => {
    // Without checkpoints: the kill leaves the last commands after the newest snapshot.
    service = await startService({ ONCE_CHECKPOINT_INTERVAL_MS: '0' });
    dataDir = service.dataDir;
    connections = new Connections(() => service.port);
    session = await TestSession.open(await connections.connect());
    replies.push((await session.command('ledger.open', { account: 'cli-acc' })).reply);
    for (let i = 1; i <= 12; i++) {
      replies.push(
        (await session.command('ledger.deposit', { account: 'cli-acc', amount: i })).reply,
      );
    }
    created = (
      await session.command('users.create', { username: 'carol', password: NEW_USER_PASSWORD })
    ).reply;
    livePing = await json<{ commit: number }>('status', '--port', String(service.port));
  }, 60_000);

  afterAll(async () => {
    connections.destroyAll();
    await service.cleanup();
  });

  it('when `once status --json` asked the running node, then it gave its commit op, ready and role', () => {
    expect(livePing).toEqual({
      host: '127.0.0.1',
      port: service.port,
      version: 1,
      // The last entry the node journaled: users.create (nothing is journaled while idle).
      commit: created.header.op,
      ready: true,
      node: null,
      role: 'none',
      leader: null,
      sessions: null,
    });
  });

  describe('when the CLI reads the directory while the node runs', () => {
    it('then it refuses, saying a running node holds the lock and to stop it first', async () => {
      const run = await once('sessions', 'list', '-d', dataDir, '--json');
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        error: {
          code: 'DATA_DIR_IN_USE',
          message: expect.stringMatching(
            /running node holds its LevelDB lock\. Stop the node first/,
          ),
        },
      });
    });
  });

  describe('when the node is killed (no snapshot at stop) and the CLI reads the stopped directory', () => {
    beforeAll(() => service.crash());

    it('then `sessions list` shows the session: owner, epoch, watermark 14, latest commit, the ring of 8', async () => {
      const result = await json<{ commitOp: number; sessions: Array<Record<string, unknown>> }>(
        'sessions',
        'list',
        '-d',
        dataDir,
        '--app',
        APP,
      );
      const mine = result.sessions.find((entry) => entry.client === session.client);
      expect(mine).toMatchObject({
        userId: session.registration.userId,
        epoch: session.epoch,
        watermark: 14,
        latestCommitOp: result.commitOp,
      });
      expect((mine!.replies as Array<{ request: number }>).map((reply) => reply.request)).toEqual([
        7, 8, 9, 10, 11, 12, 13, 14,
      ]);
    });

    it('then `sessions show --request 13` says it was applied and shows the reply the client got', async () => {
      const live = replies[12];
      const answer = await json<{ applied: boolean; verdict: string; reply: ReplyJson }>(
        'sessions',
        'show',
        session.client,
        '--request',
        '13',
        '-d',
        dataDir,
      );
      expect(answer).toMatchObject({ applied: true, verdict: 'cached' });
      expect(answer.reply).toMatchObject({ status: 'OK', op: live.header.op, watermark: 13 });
      expect(answer.reply.body).toEqual(bodyJson(live));
      expect(answer.reply.body).toEqual({ ok: true, result: { balance: 78 } });
    });

    it('then a request older than the ring is applied without a reply, and one never sent is not applied', async () => {
      const old = await json<Record<string, unknown>>(
        'sessions',
        'show',
        session.client.slice(0, 8),
        '--request',
        '1',
        '-d',
        dataDir,
      );
      expect(old).toMatchObject({ applied: true, verdict: 'applied-not-cached', reply: null });
      const future = await json<Record<string, unknown>>(
        'sessions',
        'show',
        session.client,
        '--request',
        '15',
        '-d',
        dataDir,
      );
      expect(future).toMatchObject({ applied: false, verdict: 'not-applied', watermark: 14 });
      const text = await once('sessions', 'show', session.client, '--request', '13', '-d', dataDir);
      expect(text.stdout).toMatch(/^request 13 of [0-9a-f]{32}: APPLIED at op \d+/);
    });

    it('then `sessions show` of an unknown client fails with NO_SESSION', async () => {
      const run = await once(
        'sessions',
        'show',
        'ffffffffffffffffffffffffffffffff',
        '-d',
        dataDir,
        '--json',
      );
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'NO_SESSION' } });
    });

    it('then reading it (`sessions list`, `sessions show`) journaled nothing: it still ends at the commit the node reported, users.create', async () => {
      const tail = await json<{ lastOp: number; entries: Array<Record<string, unknown>> }>(
        'journal',
        'tail',
        '-n',
        '1',
        '-d',
        dataDir,
      );
      expect(tail.lastOp).toBe(livePing.commit);
      expect(tail.entries).toEqual([
        expect.objectContaining({
          op: created.header.op,
          kind: 'COMMAND',
          pattern: 'users.create',
        }),
      ]);
    });

    it('then `journal show` decodes the entry of a deposit, and `journal tail` the last entries', async () => {
      const op = replies[12].header.op;
      // Without the service's code the CLI cannot know what a command declared sensitive:
      // bodies print only when asked for.
      expect(await json('journal', 'show', String(op), '-d', dataDir)).toMatchObject({
        op,
        body: '[withheld]',
      });
      expect(
        await json('journal', 'show', String(op), '-d', dataDir, '--show-bodies'),
      ).toMatchObject({
        op,
        kind: 'COMMAND',
        client: session.client,
        session: session.epoch,
        request: 13,
        pattern: 'ledger.deposit',
        body: { account: 'cli-acc', amount: 12 },
      });
      const tail = await json<{ lastOp: number; entries: Array<{ op: number; kind: string }> }>(
        'journal',
        'tail',
        '-n',
        '3',
        '-d',
        dataDir,
      );
      expect(tail.entries.map((entry) => entry.op)).toEqual([
        tail.lastOp - 2,
        tail.lastOp - 1,
        tail.lastOp,
      ]);
      const all = await json<{
        entries: Array<{ op: number; kind: string; pattern: string | null; body: unknown }>;
      }>('journal', 'tail', '-n', '1000', '-d', dataDir, '--show-bodies');
      // A new directory: the code's MANIFEST, the BOOT limits, then the genesis admin.
      expect(all.entries.slice(0, 3)).toEqual([
        expect.objectContaining({ op: 1, kind: 'MANIFEST', pattern: null }),
        expect.objectContaining({ op: 2, kind: 'BOOT', pattern: null }),
        expect.objectContaining({ op: 3, kind: 'COMMAND', pattern: 'users.create' }),
      ]);
      // The checksum of each COMMAND's reply is journaled in a REPLY_CHECK with the next
      // write: every COMMAND's but the last, which nothing followed before the node was killed.
      const replyChecks = all.entries.filter((entry) => entry.kind === 'REPLY_CHECK');
      expect(replyChecks.every((entry) => entry.pattern === null)).toBe(true);
      const checked = replyChecks.flatMap(
        (entry) => (entry.body as { replies: Array<{ op: number }> }).replies,
      );
      expect(checked.map((reply) => reply.op)).toEqual(
        all.entries
          .filter((entry) => entry.kind === 'COMMAND')
          .map((entry) => entry.op)
          .slice(0, -1),
      );
      // Just before users.create: the checksum of the reply the client got to the last deposit.
      const beforeCreate = all.entries.find((entry) => entry.op === created.header.op - 1);
      expect(beforeCreate).toMatchObject({ kind: 'REPLY_CHECK', pattern: null });
      expect(beforeCreate!.body).toEqual({
        replies: [{ op, checksum: checksum(replies[12].body).toString('hex') }],
      });
      expect(all.entries.filter((entry) => entry.kind === 'REGISTER')).toEqual([
        expect.objectContaining({ body: null }),
      ]);
      expect(
        all.entries.filter((entry) => entry.pattern === 'users.create').map((entry) => entry.body),
      ).toEqual([
        { username: 'admin', salt: '[redacted]', hash: '[redacted]' },
        {
          username: 'carol',
          salt: '[redacted]',
          hash: '[redacted]',
        },
      ]);
    });

    it('then `verify`, `snapshot`, `snapshot` again and `verify` write one snapshot at the end and agree with it', async () => {
      const before = await json<Record<string, unknown>>('verify', '-d', dataDir);
      expect(before).toMatchObject({ ok: true, entries: livePing.commit });
      const written = await json('snapshot', '-d', dataDir);
      expect(written).toEqual({ op: livePing.commit, bytes: expect.any(Number), written: true });
      expect(await json('snapshot', '-d', dataDir)).toMatchObject({ written: false });
      expect(await json('verify', '-d', dataDir)).toMatchObject({
        ok: true,
        entries: livePing.commit,
        snapshotOp: livePing.commit,
        snapshotMatches: true,
      });
    });

    it('then `truncate-corrupt-tail` finds nothing to cut, and `compact --keep 1` deletes the history below the snapshot', async () => {
      expect(await json('truncate-corrupt-tail', '-d', dataDir)).toEqual({
        lastOp: livePing.commit,
        corruptOp: null,
        reason: null,
        tailOps: 0,
        dropped: 0,
        lastOpAfter: livePing.commit,
      });
      expect(await json('compact', '--keep', '1', '-d', dataDir)).toMatchObject({
        firstOpBefore: 1,
        firstOp: livePing.commit,
        lastOp: livePing.commit,
        deletedEntries: livePing.commit - 1,
        interrupted: false,
      });
      expect(await json('verify', '-d', dataDir)).toMatchObject({
        ok: true,
        startSnapshotOp: livePing.commit,
      });
    });

    it('then the service boots from that snapshot and its session resumes where the CLI said', async () => {
      await service.restart();
      const resumed = await TestSession.open(await connections.connect(), {
        client: session.client,
      });
      expect(resumed.registration.watermark).toBe(14);
      await service.crash();
    });
  });

  it('then nothing the CLI printed, on stdout or stderr, holds a password', () => {
    const everything = printed.join('\n');
    expect(everything).toContain('users.create');
    expect(everything).not.toContain(ADMIN_PASSWORD);
    expect(everything).not.toContain(NEW_USER_PASSWORD);
  });
});

describe('given this repository built (npm run build)', () => {
  it('when `npx once --version` runs in it, then the CLI of libs/cli answers, with no install from a registry', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'libs/cli/package.json'), 'utf8')) as {
      version: string;
    };
    const run = await new Promise<CliRun>((resolve) => {
      execFile(
        'npx',
        ['--no-install', 'once', '--version'],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});
