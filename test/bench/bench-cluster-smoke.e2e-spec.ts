import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runNodeProgram } from '../support/node-program';

/** Built by `npm run build` (nest build bench), like the service the other e2e tests run. */
const BENCH_MAIN = join(ROOT, 'dist/bench/main.js');
/** Past this bound the bench and its children are killed; a cluster smoke run takes about 20 s. */
const BENCH_BOUND_MS = 110_000;

const FIGURES = [
  'cluster_rps_64',
  'cluster_p50_ms_64',
  'cluster_p99_ms_64',
  'cluster_avg_group_size',
  'raw_jetstream_rps_same_group',
  'ratio_cluster_vs_raw_jetstream',
  'failover_s_p50',
  'failover_s_max',
  'cluster_follower_restart_ms',
  'cluster_restart_ops',
] as const;

jest.setTimeout(BENCH_BOUND_MS + 10_000);

describe('npm run bench -- --cluster --smoke', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-bench-cluster-smoke-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('given nats-server, when the cluster bench runs, then it measures every cluster figure and writes them to the JSON file', async () => {
    const out = join(dir, 'cluster-smoke.json');
    const { exitCode, output } = await runNodeProgram(
      BENCH_MAIN,
      ['--cluster', '--smoke', '--out', out],
      BENCH_BOUND_MS,
    );
    expect({ exitCode, output: exitCode === 0 ? '' : output }).toEqual({ exitCode: 0, output: '' });
    const results = JSON.parse(await readFile(out, 'utf8'));
    for (const figure of FIGURES) {
      expect({ figure, finite: Number.isFinite(results[figure]) }).toEqual({
        figure,
        finite: true,
      });
    }
    expect(results.failovers).toHaveLength(1);
    expect(results.environment).toMatchObject({
      command: expect.stringContaining('--cluster'),
      natsServer: expect.stringContaining('nats-server'),
    });
  });
});
