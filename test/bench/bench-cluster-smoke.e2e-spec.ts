import { join } from 'node:path';
import { benchOutputDir, expectFiniteFigures, passingBenchRun } from './support/bench-run';

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
  const dir = benchOutputDir('once-bench-cluster-smoke-');

  it('given nats-server, when the cluster bench runs, then it measures every cluster figure and writes them to the JSON file', async () => {
    // Given / when
    const { results } = await passingBenchRun(
      ['--cluster', '--smoke'],
      join(dir(), 'cluster-smoke.json'),
      BENCH_BOUND_MS,
    );

    // Then: every cluster figure is a number, from one failover in the smoke profile
    expectFiniteFigures(results, FIGURES);
    expect(results.failovers).toHaveLength(1);
    expect(results.environment).toMatchObject({
      command: expect.stringContaining('--cluster'),
      natsServer: expect.stringContaining('nats-server'),
    });
  });
});
