import { spawn } from 'node:child_process';
import { typescriptRegisterFile } from '@once/testing';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { JournalStore } from './journal-store';

/**
 * The format upgrades killed by SIGKILL: the real JournalStore opens a copy
 * of a committed fixture in a child process, which kills itself right after
 * an upgrade step wrote (its notice: LevelDB is not closed, nothing after the
 * step runs), or at a random instant of the open. Each step's writes are one
 * synced LevelDB write, so the directory must then open in the format the
 * last completed step left, upgrade on from there, and hold what the fixture
 * holds.
 */
const CHILD_RUNNER = String.raw`
'use strict';
const path = require('node:path');
const { JournalStore } = require(path.join(process.env.ONCE_ROOT, 'libs/journal/src/internal'));
const [dataDir, killAt] = process.argv.slice(2);
if (killAt.startsWith('random:')) {
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), Math.random() * Number(killAt.slice(7)));
}
JournalStore.open(dataDir, {
  notice: (message) => {
    if (message.endsWith('upgraded to format ' + killAt)) process.kill(process.pid, 'SIGKILL');
  },
}).then(
  () => process.kill(process.pid, 'SIGKILL'),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
`;

const REPO_ROOT = resolve(__dirname, '../../..');
const FIXTURES = join(__dirname, '__fixtures__');

describe('data directory format upgrades killed by SIGKILL', () => {
  let workDir: string;
  let dataDir: string;

  beforeAll(async () => {
    workDir = await fs.mkdtemp(join(tmpdir(), 'once-format-crash-'));
    await fs.writeFile(join(workDir, 'child-runner.js'), CHILD_RUNNER);
  });
  afterAll(() => fs.rm(workDir, { recursive: true, force: true }));

  beforeEach(async () => {
    dataDir = join(await fs.mkdtemp(join(workDir, 'case-')), 'data');
  });

  /** A copy of the committed fixture `name` (git keeps no file mode: the secret's is restored). */
  async function copyFixture(name: string): Promise<void> {
    await fs.cp(join(FIXTURES, name), dataDir, { recursive: true });
    await fs.chmod(join(dataDir, 'node-secret'), 0o600);
  }

  /** Opens the directory in a child killed at `killAt` (a format reached, or `random:<ms>`); resolves once it is dead. */
  async function openAndKill(killAt: string): Promise<void> {
    const child = spawn(
      process.execPath,
      ['-r', typescriptRegisterFile(), join(workDir, 'child-runner.js'), dataDir, killAt],
      { env: { ...process.env, ONCE_ROOT: REPO_ROOT }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    const signal = await new Promise<NodeJS.Signals | null>((done) =>
      child.on('close', (_code, killedBy) => done(killedBy)),
    );
    expect(stderr).toBe('');
    expect(signal).toBe('SIGKILL');
  }

  /** Opens the directory here: the notices of the upgrade steps still to do, and the store. */
  async function reopen(): Promise<{ notices: string[]; store: JournalStore }> {
    const notices: string[] = [];
    const store = await JournalStore.open(dataDir, { notice: (message) => notices.push(message) });
    return { notices, store };
  }

  async function expectFormat2FixtureContents(store: JournalStore): Promise<void> {
    expect(store.meta.formatVersion).toBe(3);
    expect(store.firstOp).toBe(1);
    expect(store.lastOp).toBe(27);
    expect((await store.listSnapshots()).map((record) => record.op)).toEqual([19]);
  }

  async function expectFormat1FixtureContents(store: JournalStore): Promise<void> {
    expect(store.meta).toMatchObject({ formatVersion: 3, settings: { fixture: 'format-1' } });
    expect(store.firstOp).toBe(30);
    expect(store.lastOp).toBe(40);
    expect((await store.listSnapshots()).map((record) => record.op)).toEqual([30, 20]);
  }

  it('given a format-2 directory, when the process dies right after the meta record is written, then it opens in format 3 without upgrading again', async () => {
    await copyFixture('format-2');

    await openAndKill('3');

    const { notices, store } = await reopen();
    try {
      expect(notices).toEqual([]);
      await expectFormat2FixtureContents(store);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('given a format-1 directory, when the process dies between the step to format 2 and the step to format 3, then it opens in format 2 and is upgraded on to format 3', async () => {
    await copyFixture('format-1');

    await openAndKill('2');

    const { notices, store } = await reopen();
    try {
      expect(notices).toEqual([`data directory ${dataDir} upgraded to format 3`]);
      await expectFormat1FixtureContents(store);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('given a format-1 directory, when the process dies right after its last step, then it opens in format 3 without upgrading again', async () => {
    await copyFixture('format-1');

    await openAndKill('3');

    const { notices, store } = await reopen();
    try {
      expect(notices).toEqual([]);
      await expectFormat1FixtureContents(store);
    } finally {
      await store.close();
    }
  }, 60_000);

  it.each(['format-1', 'format-2'])(
    'given a %s directory, when the process dies at random instants of its opening, then every time it opens after, in format 3 with its contents',
    async (fixture) => {
      await copyFixture(fixture);
      for (let kill = 0; kill < 3; kill++) {
        await openAndKill('random:100');

        const { notices, store } = await reopen();
        try {
          // Whatever the kill interrupted, the steps left to do are a tail of the whole upgrade.
          const steps = fixture === 'format-1' ? ['2', '3'] : ['3'];
          expect(steps.slice(steps.length - notices.length)).toEqual(
            notices.map((notice) => notice.slice(-1)),
          );
          if (fixture === 'format-1') await expectFormat1FixtureContents(store);
          else await expectFormat2FixtureContents(store);
        } finally {
          await store.close();
        }
        // Back to the fixture, so that the next kill may land in an upgrade again.
        await fs.rm(dataDir, { recursive: true, force: true });
        await copyFixture(fixture);
      }
    },
    120_000,
  );
});
