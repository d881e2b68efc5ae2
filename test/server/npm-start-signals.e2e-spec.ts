import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eventually } from '@once/testing';
import { ADMIN_PASSWORD, runServiceToExit } from '../support/wire';
import { TEST_RUN_VARIABLE, findTaggedProcesses } from '../support/test-run-processes';

const ROOT = resolve(__dirname, '../..');
const LISTENING = /listening on [0-9.]+:(\d+)/;

/** `npm run <script>` from the repository root; resolves with the port the service listens on. */
function npmRun(
  script: string,
  env: Record<string, string>,
): { child: ChildProcess; port: Promise<number>; output: () => string } {
  const child = spawn('npm', ['run', script], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = new Promise<number>((done, fail) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = LISTENING.exec(output);
      if (match) done(Number(match[1]));
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) =>
      fail(new Error(`npm exited ${code} before listening:\n${output}`)),
    );
  });
  return { child, port, output: () => output };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => done(socket.destroy() === socket));
    socket.once('error', () => done(false));
  });
}

describe('given the service run by npm (`npm run start:prod`, what `npm start` runs after building)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'once-npm-start-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('when npm is sent SIGTERM, then the service stops with it: no process keeps the port or the data directory', async () => {
    // Given the service listening, started through npm with a tag of its own
    const tag = `npm-start-${randomUUID()}`;
    const run = npmRun('start:prod', {
      ONCE_DATA_DIR: join(dataDir, 'data'),
      ONCE_PORT: '0',
      ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
      [TEST_RUN_VARIABLE]: tag,
    });
    const port = await run.port;
    await eventually(() => /ready at op \d+/.test(run.output()), 'the service ready', 20_000);
    expect(findTaggedProcesses(tag).length).toBeGreaterThan(0);

    // When npm alone gets SIGTERM (as a process manager sends it)
    const npmExited = new Promise((done) => run.child.once('exit', done));
    run.child.kill('SIGTERM');
    await npmExited;

    // Then nothing of the run is left: the port is closed and the directory reopens
    await eventually(
      () => findTaggedProcesses(tag).length === 0,
      `no process of the run left (${JSON.stringify(findTaggedProcesses(tag))})`,
      10_000,
    );
    expect(await accepts(port)).toBe(false);
    const reopened = await runServiceToExit({ ONCE_DATA_DIR: join(dataDir, 'data') }, ['--verify']);
    expect(reopened.output).not.toMatch(/is in use/);
    expect(reopened.code).toBe(0);
    expect(run.output()).toMatch(/snapshot at op \d+ (written|is current)/);
  });

  it('when `npm start` runs, then it is the build followed by this same command', async () => {
    const { scripts } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toMatch(/^.+ && (.+)$/);
    expect(/^.+ && (.+)$/.exec(scripts.start)![1]).toBe(scripts['start:prod']);
    expect(scripts['start:prod']).toMatch(/^exec /);
  });
});
