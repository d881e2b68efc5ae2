import { join } from 'node:path';
import type { ScalingBenchDocument } from '../../bench/scaling-bench';
import { benchOutputDir, passingBenchRun } from './support/bench-run';

/** Past this bound the bench and its children are killed; a scaling smoke run takes about 70 s. */
const BENCH_BOUND_MS = 230_000;

/** The smoke plan's sizes (bench/scaling-plan.ts). */
const CONNECTIONS = [1, 4, 16];
const SESSIONS = [1000, 2000, 4000];
const JOURNAL_OPS = [1000, 2000, 4000];
const MODULE_STATES = [1000, 2000];
const MODULE_STATE_ROUNDS = 2;

jest.setTimeout(BENCH_BOUND_MS + 10_000);

/** Every value of `row` that is not a number other than NaN or ±Infinity, by key. */
function nonFinite(row: object, allowNull: readonly string[] = []): string[] {
  return Object.entries(row)
    .filter(([key, value]) => !(allowNull.includes(key) && value === null))
    .filter(([, value]) => typeof value !== 'number' || !Number.isFinite(value))
    .map(([key]) => key);
}

describe('npm run bench -- --scaling --smoke', () => {
  const dir = benchOutputDir('once-bench-scaling-smoke-');

  it('given the built service, when the scaling bench runs, then every series has a figure at every size, with its slopes, in the JSON file and the printed table', async () => {
    // Given / when
    const { results, output } = await passingBenchRun<ScalingBenchDocument>(
      ['--scaling', '--smoke'],
      join(dir(), 'scaling-smoke.json'),
      BENCH_BOUND_MS,
    );

    // Then: it succeeded and printed the three tables
    for (const title of [
      'throughput by connections',
      'memory by idle sessions',
      'restart by journal length',
      'module state by ledger accounts',
    ]) {
      expect(output).toContain(title);
    }

    // Throughput: a row per connection count, each figure measured
    const throughput = results.throughput_by_connections;
    expect(throughput.map((row) => row.connections)).toEqual(CONNECTIONS);
    for (const row of throughput) expect({ row, bad: nonFinite(row) }).toMatchObject({ bad: [] });
    expect(results.throughput?.connectionsOpened).toBe(Math.max(...CONNECTIONS));

    // Memory: a row per session count; the snapshot grows with every session
    const memory = results.memory_by_sessions;
    expect(memory.map((row) => row.sessions)).toEqual(SESSIONS);
    for (const row of memory) expect({ row, bad: nonFinite(row) }).toMatchObject({ bad: [] });
    for (const row of memory) expect(row.step_snapshot_bytes_per_session).toBeGreaterThan(0);

    // Restart: the empty journal, then a row per length, filled to at least that length
    const restart = results.restart_by_journal_ops;
    expect(restart).toHaveLength(JOURNAL_OPS.length + 1);
    JOURNAL_OPS.forEach((ops, index) =>
      expect(restart[index + 1].journal_ops).toBeGreaterThanOrEqual(ops),
    );
    const slopes = ['step_us_per_1k_ops_without_snapshot', 'step_us_per_1k_ops_with_snapshot'];
    expect(nonFinite(restart[0], slopes)).toEqual([]);
    for (const row of restart.slice(1))
      expect({ row, bad: nonFinite(row) }).toMatchObject({ bad: [] });

    // Module state: a row per ledger size, every figure measured, ratios against the smallest
    const moduleState = results.module_state_by_entities;
    expect(moduleState.map((row) => row.entities)).toEqual(MODULE_STATES);
    for (const row of moduleState) expect({ row, bad: nonFinite(row) }).toMatchObject({ bad: [] });
    expect(moduleState[0]).toMatchObject({ rps_vs_first: 1, p99_vs_first: 1 });
    for (const point of results.moduleStates) {
      // Every account was opened, and the service's event loop was scraped per phase
      expect(point.fill.accounts).toBe(point.entities);
      expect(point.journalOps).toBeGreaterThan(point.entities);
      // Each round measured both loads
      expect(point.rounds).toHaveLength(MODULE_STATE_ROUNDS);
      for (const round of point.rounds) {
        expect(Math.min(round.rps, round.halfPeakP50Ms, round.halfPeakP99Ms)).toBeGreaterThan(0);
      }
      // Each phase's window starts once its clients are connected: their REGISTERs apart
      expect(Object.keys(point.stalls).sort()).toEqual(['closed', 'fill', 'halfPeak', 'setup']);
      expect(point.fill.setupStall).toBeDefined();
      for (const stall of Object.values(point.stalls)) {
        expect(stall.maxMs).toBeGreaterThanOrEqual(0);
        expect(stall.peakMs).toBeGreaterThanOrEqual(stall.maxMs);
        expect(stall.maxOnCpuMs).toBeLessThanOrEqual(stall.maxMs);
      }
      // The restart booted the same journal: its snapshot and replay reach the kill's op
      expect(point.restart.replay.snapshotOp + point.restart.replay.totalEntries).toBe(
        point.journalOps,
      );
    }
    // Stalls are checked at every size; the other targets from 1M accounts on only
    expect(results.module_state_targets.map((target) => target.name)).toEqual(
      MODULE_STATES.map(() => 'stall_ms'),
    );

    // The two cases are what they say: the whole journal replayed, or nothing after the snapshot
    for (const point of results.restarts) {
      expect(point.withoutSnapshot.replay).toMatchObject({
        snapshotOp: 0,
        totalEntries: point.withoutSnapshot.journalOps,
      });
      expect(point.withSnapshot.replay).toMatchObject({
        snapshotOp: point.stopSnapshot.op,
        totalEntries: 0,
      });
    }
  });
});
