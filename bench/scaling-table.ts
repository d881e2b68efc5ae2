import { type ScalingFigures } from './scaling-figures';
import { formatTable } from './text-table';

/** The three series of `--scaling` as text tables, one under the other. */
export function scalingTables(figures: ScalingFigures): string {
  const fixed = (value: number | null, digits: number) =>
    value === null ? '—' : value.toFixed(digits);
  const throughput = formatTable(
    ['connections', 'req/s', '× previous', 'p50 ms', 'p99 ms', 'entries/sync', 'syncs/s'],
    figures.throughput_by_connections.map((row) => [
      String(row.connections),
      fixed(row.rps, 0),
      fixed(row.rps_vs_previous, 2),
      fixed(row.p50_ms, 2),
      fixed(row.p99_ms, 2),
      fixed(row.avg_group_size, 1),
      fixed(row.syncs_per_s, 0),
    ]),
  );
  const memory = formatTable(
    [
      'sessions',
      'B/session',
      'step B/session',
      'snapshot B',
      'snapshot B/session',
      'step',
      'capture ms',
    ],
    figures.memory_by_sessions.map((row) => [
      String(row.sessions),
      fixed(row.bytes_per_session, 0),
      fixed(row.step_bytes_per_session, 0),
      String(row.snapshot_bytes),
      fixed(row.snapshot_bytes_per_session, 1),
      fixed(row.step_snapshot_bytes_per_session, 1),
      fixed(row.snapshot_capture_ms, 0),
    ]),
  );
  const restart = formatTable(
    [
      'journal ops',
      'no snapshot ms',
      'step µs/1k ops',
      'replay entries/s',
      'snapshot ms',
      'step µs/1k ops',
    ],
    figures.restart_by_journal_ops.map((row) => [
      String(row.journal_ops),
      fixed(row.restart_ms_without_snapshot, 0),
      fixed(row.step_us_per_1k_ops_without_snapshot, 0),
      String(row.replay_eps),
      fixed(row.restart_ms_with_snapshot, 0),
      fixed(row.step_us_per_1k_ops_with_snapshot, 0),
    ]),
  );
  return [
    'throughput by connections (closed loop)',
    throughput,
    '',
    'memory by idle sessions',
    memory,
    '',
    'restart by journal length',
    restart,
  ].join('\n');
}
