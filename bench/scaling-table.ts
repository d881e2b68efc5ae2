import { type ScalingFigures } from './scaling-figures';
import { formatTable } from './text-table';

/** The series of `--scaling` that were measured, as text tables, one under the other. */
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
  const moduleState = formatTable(
    [
      'accounts',
      'fill req/s',
      'req/s',
      '× first',
      'p99 ms ½',
      '× first',
      'stall ms fill',
      'stall ms load',
      'on CPU fill',
      'on CPU load',
      'setup ms',
      'idle ms',
      'snapshots',
      'restart ms',
      'replayed',
      'disk B/req',
      'LevelDB B/req',
    ],
    figures.module_state_by_entities.map((row) => [
      String(row.entities),
      fixed(row.fill_rps, 0),
      fixed(row.rps, 0),
      fixed(row.rps_vs_first, 2),
      fixed(row.p99_ms_at_half_peak, 2),
      fixed(row.p99_vs_first, 2),
      fixed(row.stall_ms_fill, 1),
      fixed(row.stall_ms_load, 1),
      fixed(row.stall_cpu_ms_fill, 1),
      fixed(row.stall_cpu_ms_load, 1),
      fixed(row.stall_ms_setup, 1),
      fixed(row.control_stall_ms, 1),
      String(row.snapshots),
      fixed(row.restart_ms, 0),
      String(row.restart_replayed_entries),
      fixed(row.disk_bytes_per_request, 0),
      fixed(row.leveldb_bytes_per_request, 0),
    ]),
  );
  const missed = figures.module_state_targets.filter((target) => !target.met);
  const targets =
    figures.module_state_targets.length === 0
      ? []
      : missed.length === 0
        ? ['targets met']
        : missed.map(
            (target) =>
              `target missed at ${target.entities}: ${target.name} ${target.value.toFixed(2)} (${target.target})`,
          );
  const sections: Array<[string, number, string, string[]]> = [
    [
      'throughput by connections (closed loop)',
      figures.throughput_by_connections.length,
      throughput,
      [],
    ],
    ['memory by idle sessions', figures.memory_by_sessions.length, memory, []],
    ['restart by journal length', figures.restart_by_journal_ops.length, restart, []],
    [
      "module state by ledger accounts (deposits into random accounts; medians over interleaved rounds, × first: the median of the round-by-round ratios; ½: open loop at half the closed loop; stalls: the longest round's; on CPU: the stalls counted in the service's main-thread CPU time; idle ms: the bench's own longest stall, the machine's share)",
      figures.module_state_by_entities.length,
      moduleState,
      targets,
    ],
  ];
  return sections
    .filter(([, rows]) => rows > 0)
    .map(([title, , table, notes]) => [title, table, ...notes].join('\n'))
    .join('\n\n');
}
