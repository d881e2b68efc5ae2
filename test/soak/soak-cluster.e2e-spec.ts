import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runNodeProgram } from '../support/node-program';

/** Built by `npm run build` (nest build soak), like the service the other e2e tests run. */
const SOAK_MAIN = join(ROOT, 'dist/soak/main.js');
/**
 * Past this bound the soak, its nodes and NATS servers are killed, so that a
 * hang fails with the soak's output. The run below takes about 1.5 minutes
 * on 2 cores.
 */
const SOAK_BOUND_MS = 200_000;

/** The parts of the soak's JSON report this test reads. */
interface ClusterSoakReportJson {
  passed: boolean;
  checks: Record<string, unknown>;
  chaos: { leaderKills: number; followerKills: number; cuts: number; stalls: number };
  failover: { count: number };
  transfers: { acknowledged: number };
  replays: Array<{ node: string; equal: boolean }>;
  cluster: { identical: boolean };
}

describe('npm run soak -- --cluster', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-soak-cluster-e2e-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('given three nodes on three NATS servers whose leader is SIGKILLed and whose links are cut and stalled during pipelined transfers, then nothing acknowledged is lost, nothing is applied twice, balances reconcile, and every node replays to the same state', async () => {
    const out = join(dir, 'soak-cluster.json');
    // Kills 1 and 2 are of the leader; one every 2-4 s leaves room for both within the load.
    const { exitCode, output } = await runNodeProgram(
      SOAK_MAIN,
      [
        '--cluster',
        '--minutes',
        '0.75',
        '--clients',
        '4',
        '--kill-every-ms',
        '2000-4000',
        '--probe-acknowledged',
        '2000',
        '--out',
        out,
      ],
      SOAK_BOUND_MS,
    );
    // The output only matters when the exit code is wrong; it is then in the failure message.
    expect({ exitCode, output: exitCode === 0 ? '' : output }).toEqual({ exitCode: 0, output: '' });
    const report = JSON.parse(await readFile(out, 'utf8')) as ClusterSoakReportJson;
    expect(report.checks).toMatchObject({
      lost: 0,
      doubled: 0,
      phantom: 0,
      conserved: true,
      reconciled: true,
      replayEqual: true,
      replicasIdentical: true,
    });
    expect(report.replays.map(({ node, equal }) => [node, equal]).sort()).toEqual([
      ['node1', true],
      ['node2', true],
      ['node3', true],
    ]);
    expect(report.chaos.leaderKills).toBeGreaterThanOrEqual(2);
    expect(report.failover.count).toBe(report.chaos.leaderKills);
    expect(report.chaos.cuts + report.chaos.stalls).toBeGreaterThanOrEqual(1);
    expect(report.transfers.acknowledged).toBeGreaterThan(0);
    expect(report.passed).toBe(true);
  }, 210_000);
});
