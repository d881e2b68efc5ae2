import { join } from 'node:path';
import { benchOutputDir, expectFiniteFigures, passingBenchRun } from './support/bench-run';

/**
 * Past this bound the bench and its children are killed; a smoke run takes
 * about 25 s, 50 s on a busy 2-core machine (the durable peers' servers start in it, PostgreSQL's initdb
 * included; the HTTP peers add a few seconds).
 */
const BENCH_BOUND_MS = 110_000;

const FIGURES = [
  'once_rps_64',
  'nest_tcp_rps_64',
  'ratio_once_vs_nest_tcp',
  'avg_group_size',
  'raw_level_rps_same_batch',
  'ratio_once_vs_raw_level',
  'p50_ms_at_half_peak',
  'p99_ms_at_half_peak',
  'raw_level_p50_ms_same_rate',
  'raw_level_p99_ms_same_rate',
  'ratio_p99_vs_raw_level_same_rate',
  'replay_eps',
  'raw_iter_eps',
  'ratio_replay_vs_raw_iter',
  'restart_s_with_snapshot',
  'restart_s_without_snapshot',
  'restart_ops',
  'bytes_per_idle_session',
  'ratio_reply_check_on_vs_off',
  'redis_peer_rps_64',
  'pg_peer_rps_64',
  'ratio_once_vs_redis_peer',
  'ratio_once_vs_pg_peer',
  'redis_peer_p50_ms_at_half_peak',
  'redis_peer_p99_ms_at_half_peak',
  'pg_peer_p50_ms_at_half_peak',
  'pg_peer_p99_ms_at_half_peak',
  'http_once_rps_64',
  'ratio_http_once_vs_node_idempotency',
  'ratio_http_once_vs_plain',
  'http_once_p50_ms_at_half_peak',
  'http_once_p99_ms_at_half_peak',
  'http_node_idempotency_rps_64',
  'http_plain_rps_64',
  'ratio_http_node_idempotency_vs_plain',
  'http_node_idempotency_p50_ms_at_half_peak',
  'http_node_idempotency_p99_ms_at_half_peak',
  'http_plain_p50_ms_at_half_peak',
  'http_plain_p99_ms_at_half_peak',
] as const;

jest.setTimeout(BENCH_BOUND_MS + 10_000);

/** What the bench's exactly-once check of each durable peer must have seen. */
const EXACTLY_ONCE = {
  keys: 1000,
  balanceAfterDuplicates: 1000,
  balanceAfterResend: 1000,
  keysWithDifferentReplies: 0,
};

describe('npm run bench -- --smoke', () => {
  const dir = benchOutputDir('once-bench-smoke-');

  it('given redis-server and PostgreSQL, when the single-node bench runs, then it measures every figure, checks the durable peers are exactly-once, and writes them to the JSON file', async () => {
    // Given / when
    const { results } = await passingBenchRun(
      ['--smoke'],
      join(dir(), 'smoke.json'),
      BENCH_BOUND_MS,
    );

    // Then: every figure is a number
    expectFiniteFigures(results, FIGURES);
    // The reply-check ratio is held to its target, and says whether it reached it
    expect(results.targets).toEqual({
      ratio_reply_check_on_vs_off: { atLeast: 0.97, reached: expect.any(Boolean) },
    });
    const [run] = results.runs;
    // The disk's own tail is measured at the open loop's offered rate, and
    // both databases' LevelDB activity is read from their info logs.
    expect(run.rawGroupCommit.ratePerSecond).toBe(Math.round(run.halfPeak.offeredRatePerSecond));
    expect(run.rawGroupCommit.latency.samples).toBeGreaterThan(0);
    for (const activity of [run.leveldb, run.rawGroupCommit.leveldb]) {
      expect(activity).toEqual({
        flushes: expect.any(Number),
        flushedBytes: expect.any(Number),
        compactions: expect.any(Number),
        compactionBytes: expect.any(Number),
        trivialMoves: expect.any(Number),
        ...(activity.inWindow && {
          inWindow: { flushes: expect.any(Number), compactions: expect.any(Number) },
        }),
      });
    }
    expect(run.leveldb.inWindow).toBeDefined();

    // The run is described, and each durable peer applied each deposit once
    expect(results.environment).toMatchObject({ command: expect.stringContaining('--smoke') });
    expect(results.peers.checks).toEqual({ redis: EXACTLY_ONCE, pg: EXACTLY_ONCE });
    // The HTTP peers, once's ledger HTTP API among them, were loaded alike: keep-alive
    // HTTP/1.1, one request in flight per connection, every request answered OK
    expect(results.httpPeers.names).toEqual(['once', 'node-idempotency', 'plain']);
    for (const name of results.httpPeers.names) {
      for (const load of [run.httpPeers[name].closed, run.httpPeers[name].halfPeak]) {
        expect(load).toMatchObject({ target: 'http-deposit', depth: 1, errors: 0 });
        expect(load.completed).toBeGreaterThan(0);
      }
    }
    // and once's ratios are its throughput over each NestJS peer's in the same run
    expect(results.ratio_http_once_vs_plain).toBeCloseTo(
      run.httpPeers.once.closed.requestsPerSecond / run.httpPeers.plain.closed.requestsPerSecond,
    );
  });
});
