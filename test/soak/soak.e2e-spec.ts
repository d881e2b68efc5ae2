import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runNodeProgram } from '../support/node-program';

/** Built by `npm run build` (nest build soak), like the service the other e2e tests run. */
const SOAK_MAIN = join(ROOT, 'dist/soak/main.js');
/**
 * Past this bound the soak and its service are killed, so that a hang fails
 * with the soak's output. A one-minute soak takes about 1.5 minutes on 2 cores.
 */
const SOAK_BOUND_MS = 140_000;

/** The soak's report of a run with `args`, once the run exited 0 and every check held. */
async function passingSoak(args: readonly string[], out: string): Promise<SoakReportJson> {
  const { exitCode, output } = await runNodeProgram(
    SOAK_MAIN,
    [...args, '--out', out],
    SOAK_BOUND_MS,
  );
  // The output only matters when the exit code is wrong; it is then in the failure message.
  expect({ exitCode, output: exitCode === 0 ? '' : output }).toEqual({ exitCode: 0, output: '' });
  const report = JSON.parse(await readFile(out, 'utf8')) as SoakReportJson;
  expect(report.checks).toMatchObject({
    lost: 0,
    doubled: 0,
    conserved: true,
    replayEqual: true,
  });
  expect(report.passed).toBe(true);
  return report;
}

/** The parts of the soak's JSON report these tests read. */
interface SoakReportJson {
  passed: boolean;
  checks: Record<string, unknown>;
  chaos: { kills: number; cuts: number };
  transfers: { acknowledged: number; inDoubt: number };
  breakdown: { inDoubt: Record<string, number> };
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
    const report = await passingSoak(['--minutes', '1', '--clients', '8'], join(dir, 'soak.json'));
    expect(report.chaos.kills).toBeGreaterThanOrEqual(2);
    expect(report.chaos.cuts).toBeGreaterThanOrEqual(1);
    expect(report.transfers.acknowledged).toBeGreaterThan(0);
  }, 150_000);

  it('given a client table smaller than the clients, so that their sessions evict each other, then the transfers left in doubt are settled by reference and nothing is lost or applied twice', async () => {
    const report = await passingSoak(
      ['--minutes', '0.2', '--clients', '4', '--clients-max', '3', '--probe-acknowledged', '2000'],
      join(dir, 'soak-evictions.json'),
    );
    // The in-doubt path ran: sessions were lost under commands in flight.
    expect(report.transfers.inDoubt).toBeGreaterThan(0);
    expect(Object.keys(report.breakdown.inDoubt)).toContain('OUTCOME_UNKNOWN(EVICTED)');
  }, 150_000);
});
