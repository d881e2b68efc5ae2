import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
/** Built by `npm run build` (nest build soak), like the service the other e2e tests run. */
const SOAK_MAIN = join(ROOT, 'dist/soak/main.js');
/**
 * A bound, not a timing assertion: past it the soak and its service are
 * killed, so that a hang fails with the soak's output instead of a bare jest
 * timeout. A one-minute soak takes about 1.5 minutes on 2 cores.
 */
const SOAK_BOUND_MS = 140_000;

/** Runs the soak in its own process group (killed whole at the bound), with its output. */
function runSoak(args: readonly string[]): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [SOAK_MAIN, ...args], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      output += `\n(killed after ${SOAK_BOUND_MS} ms)`;
      process.kill(-child.pid!, 'SIGKILL');
    }, SOAK_BOUND_MS);
    child.once('error', failed);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      done({ exitCode, output });
    });
  });
}

describe('npm run soak -- --minutes 1 --clients 8', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-soak-e2e-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('given SIGKILLs, cuts and stalls during pipelined transfers, then nothing acknowledged is lost, nothing is applied twice, money is conserved and a full replay equals the live state', async () => {
    const out = join(dir, 'soak.json');
    const { exitCode, output } = await runSoak(['--minutes', '1', '--clients', '8', '--out', out]);
    // The output only matters when the exit code is wrong; it is then in the failure message.
    expect({ exitCode, output: exitCode === 0 ? '' : output }).toEqual({ exitCode: 0, output: '' });

    const report = JSON.parse(await readFile(out, 'utf8'));
    expect(report.chaos.kills).toBeGreaterThanOrEqual(2);
    expect(report.chaos.cuts).toBeGreaterThanOrEqual(1);
    expect(report.transfers.acknowledged).toBeGreaterThan(0);
    expect(report.checks).toMatchObject({
      lost: 0,
      doubled: 0,
      conserved: true,
      replayEqual: true,
    });
    expect(report.passed).toBe(true);
  }, 150_000);
});
