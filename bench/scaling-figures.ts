import { type ModuleStatePoint, type ModuleStateRound } from './scaling-module-state';
import { type ScalingRestartPoint } from './scaling-restarts';
import { type ScalingSessionsReport } from './scaling-sessions';
import { type ScalingThroughput } from './scaling-throughput';
import { median, medianBy } from './stats';

/** One connection count: medians over the rounds. */
export interface ThroughputRow {
  readonly connections: number;
  readonly rps: number;
  /** `rps` over the previous row's (the first row: over nothing, 1). */
  readonly rps_vs_previous: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  /** Entries per synced journal batch inside the windows. */
  readonly avg_group_size: number;
  /** `rps / avg_group_size`: synced batches per second, the disk's side of the product. */
  readonly syncs_per_s: number;
}

/** One session count. */
export interface MemoryRow {
  readonly sessions: number;
  /** Heap growth over the node before any session, per session. */
  readonly bytes_per_session: number;
  /** Heap growth from the previous size to this one, per added session (first row: from 0). */
  readonly step_bytes_per_session: number;
  /** The node's snapshot with these sessions (no modules: the client table, a header, settings). */
  readonly snapshot_bytes: number;
  readonly snapshot_bytes_per_session: number;
  /** Snapshot growth from the previous size, per added session (first row: from 0). */
  readonly step_snapshot_bytes_per_session: number;
  /** Capturing that snapshot: the main thread encodes the whole state at once. */
  readonly snapshot_capture_ms: number;
}

/** One journal length. */
export interface RestartRow {
  readonly journal_ops: number;
  /** Spawn to ready after SIGKILL, the whole journal replayed; median over the restarts. */
  readonly restart_ms_without_snapshot: number;
  /** The same from a snapshot at the journal's end (a graceful stop's). */
  readonly restart_ms_with_snapshot: number;
  /** Restart growth from the previous length, µs per 1,000 more ops (first row: none, null). */
  readonly step_us_per_1k_ops_without_snapshot: number | null;
  readonly step_us_per_1k_ops_with_snapshot: number | null;
  /** The boot replay's own rate, from its log line (no snapshot). */
  readonly replay_eps: number;
}

/** One ledger size of the module-state series; ratios against the smallest size of the run. */
export interface ModuleStateRow {
  /** Ledger accounts, each a keyed record. */
  readonly entities: number;
  /** Their `ledger.open`s through the SDK, per second. */
  readonly fill_rps: number;
  /** Closed loop of deposits into random accounts. */
  readonly rps: number;
  readonly rps_vs_first: number;
  readonly p50_ms_at_half_peak: number;
  readonly p99_ms_at_half_peak: number;
  readonly p99_vs_first: number;
  /**
   * Longest event-loop delay while the fill's and the loads' clients
   * connected (a scrypt per REGISTER): not persistence, outside the targets.
   */
  readonly stall_ms_setup: number;
  /** Longest event-loop delay while the accounts were opened (the clients connected). */
  readonly stall_ms_fill: number;
  /** Longest event-loop delay during the closed and the open loop. */
  readonly stall_ms_load: number;
  /**
   * The same two counted in the service's main-thread CPU time (per sample,
   * the smaller of the delay and the CPU that thread used meanwhile, as
   * Linux's scheduler counts it): on a busy host,
   * what the service's own work could have blocked; the rest was waiting
   * for a CPU.
   */
  readonly stall_cpu_ms_fill: number;
  readonly stall_cpu_ms_load: number;
  /** The idle bench process's longest delay over the same phases: the machine's share. */
  readonly control_stall_ms: number;
  /** Snapshots the run wrote (fill and load), and the longest write (capture excluded). */
  readonly snapshots: number;
  readonly snapshot_write_ms_max: number;
  /** Spawn to ready after SIGKILL, median; and what its replay applied. */
  readonly restart_ms: number;
  readonly restart_replayed_entries: number;
  /** The journal's end at the kill. */
  readonly journal_ops: number;
  /** Storage writes of the service per closed-loop request (/proc/<pid>/io); null where unreadable. */
  readonly disk_bytes_per_request: number | null;
  /** LevelDB's flushed and compacted bytes per closed-loop request (its info log). */
  readonly leveldb_bytes_per_request: number;
  readonly data_dir_bytes: number;
}

/** One target of the module-state series, checked at one size. */
export interface ModuleStateTarget {
  readonly entities: number;
  readonly name: 'rps_vs_first' | 'p99_vs_first' | 'stall_ms' | 'restart_ms';
  readonly value: number;
  /** `≥ 0.8`, `≤ 1.5`, … */
  readonly target: string;
  readonly met: boolean;
}

/** The figures of `--scaling`: four series, each with its per-step slopes or ratios. */
export interface ScalingFigures {
  readonly throughput_by_connections: readonly ThroughputRow[];
  readonly memory_by_sessions: readonly MemoryRow[];
  readonly restart_by_journal_ops: readonly RestartRow[];
  readonly module_state_by_entities: readonly ModuleStateRow[];
  readonly module_state_targets: readonly ModuleStateTarget[];
}

/** Where the throughput and p99 targets apply: the state outgrows the keyed cache's default. */
const LARGE_STATE_ENTITIES = 1_000_000;
const RPS_RATIO_MIN = 0.8;
const P99_RATIO_MAX = 1.5;
const STALL_MS_MAX = 50;
const RESTART_MS_MAX = 2000;

export function computeScalingFigures(
  throughput: ScalingThroughput | undefined,
  sessions: readonly ScalingSessionsReport[],
  restarts: readonly ScalingRestartPoint[],
  moduleStates: readonly ModuleStatePoint[],
): ScalingFigures {
  const moduleStateRows = moduleStateRowsOf(moduleStates);
  return {
    throughput_by_connections: throughput ? throughputRows(throughput) : [],
    memory_by_sessions: memoryRows(sessions),
    restart_by_journal_ops: restartRows(restarts),
    module_state_by_entities: moduleStateRows,
    module_state_targets: moduleStateTargets(moduleStateRows),
  };
}

function moduleStateRowsOf(points: readonly ModuleStatePoint[]): ModuleStateRow[] {
  const sorted = [...points].sort((a, b) => a.entities - b.entities);
  const first = sorted[0];
  return sorted.map((point) => {
    const { disk } = point;
    return {
      entities: point.entities,
      fill_rps: point.fill.requestsPerSecond,
      rps: point.closed.requestsPerSecond,
      rps_vs_first: pairedRatio(point, first, (round) => round.rps, 'higher'),
      p50_ms_at_half_peak: point.halfPeak.latency.p50Ms,
      p99_ms_at_half_peak: point.halfPeak.latency.p99Ms,
      p99_vs_first: pairedRatio(point, first, (round) => round.halfPeakP99Ms, 'lower'),
      stall_ms_setup: point.stalls.setup.maxMs,
      stall_ms_fill: point.stalls.fill.maxMs,
      stall_ms_load: Math.max(point.stalls.closed.maxMs, point.stalls.halfPeak.maxMs),
      stall_cpu_ms_fill: point.stalls.fill.maxOnCpuMs,
      stall_cpu_ms_load: Math.max(point.stalls.closed.maxOnCpuMs, point.stalls.halfPeak.maxOnCpuMs),
      control_stall_ms: Math.max(
        point.controlStallMs.fill,
        point.controlStallMs.closed,
        point.controlStallMs.halfPeak,
      ),
      snapshots: point.snapshots.length,
      snapshot_write_ms_max: Math.max(0, ...point.snapshots.map((write) => write.elapsedMs)),
      restart_ms: point.restart.medianReadyAfterMs,
      restart_replayed_entries: point.restart.replay.totalEntries,
      journal_ops: point.journalOps,
      disk_bytes_per_request:
        disk.writeBytes === undefined ? null : disk.writeBytes / disk.requests,
      leveldb_bytes_per_request:
        (disk.leveldbFlushedBytes + disk.leveldbCompactionBytes) / disk.requests,
      data_dir_bytes: disk.dataDirBytes,
    };
  });
}

/**
 * The median over rounds of `point`'s figure over `first`'s in the same
 * round (rounds ran side by side: the machine's drift between rounds
 * cancels out); of an even count, the worse of the two middle ones.
 */
function pairedRatio(
  point: ModuleStatePoint,
  first: ModuleStatePoint,
  figure: (round: ModuleStateRound) => number,
  better: 'higher' | 'lower',
): number {
  const ratios = point.rounds.map((round, index) => figure(round) / figure(first.rounds[index]));
  return medianBy(ratios, (ratio) => (better === 'higher' ? -ratio : ratio));
}

/**
 * The module-state targets: at every size no stall above 50 ms; from 1M
 * entities on, throughput ≥ 0.8 and p99 ≤ 1.5 × the smallest size's of the
 * same run, and a restart within 2 s.
 */
function moduleStateTargets(rows: readonly ModuleStateRow[]): ModuleStateTarget[] {
  const targets: ModuleStateTarget[] = [];
  for (const row of rows) {
    const stall = Math.max(row.stall_ms_fill, row.stall_ms_load);
    targets.push({
      entities: row.entities,
      name: 'stall_ms',
      value: stall,
      target: `≤ ${STALL_MS_MAX}`,
      met: stall <= STALL_MS_MAX,
    });
    if (row.entities < LARGE_STATE_ENTITIES) continue;
    targets.push(
      {
        entities: row.entities,
        name: 'rps_vs_first',
        value: row.rps_vs_first,
        target: `≥ ${RPS_RATIO_MIN}`,
        met: row.rps_vs_first >= RPS_RATIO_MIN,
      },
      {
        entities: row.entities,
        name: 'p99_vs_first',
        value: row.p99_vs_first,
        target: `≤ ${P99_RATIO_MAX}`,
        met: row.p99_vs_first <= P99_RATIO_MAX,
      },
      {
        entities: row.entities,
        name: 'restart_ms',
        value: row.restart_ms,
        target: `≤ ${RESTART_MS_MAX}`,
        met: row.restart_ms <= RESTART_MS_MAX,
      },
    );
  }
  return targets;
}

function throughputRows(throughput: ScalingThroughput): ThroughputRow[] {
  const counts = [...new Set(throughput.points.map((point) => point.connections))].sort(
    (a, b) => a - b,
  );
  let previousRps = Number.NaN;
  return counts.map((connections) => {
    const points = throughput.points.filter((point) => point.connections === connections);
    const rps = median(points.map((point) => point.requestsPerSecond));
    const groupSize = median(points.map((point) => point.groupCommits.avgGroupSize));
    const row: ThroughputRow = {
      connections,
      rps,
      rps_vs_previous: Number.isNaN(previousRps) ? 1 : rps / previousRps,
      p50_ms: median(points.map((point) => point.latency.p50Ms)),
      p99_ms: median(points.map((point) => point.latency.p99Ms)),
      avg_group_size: groupSize,
      syncs_per_s: rps / groupSize,
    };
    previousRps = rps;
    return row;
  });
}

function memoryRows(reports: readonly ScalingSessionsReport[]): MemoryRow[] {
  const sorted = [...reports].sort((a, b) => a.sessions - b.sessions);
  return sorted.map((report, index) => {
    const previous = index > 0 ? sorted[index - 1] : undefined;
    const growth = (r: ScalingSessionsReport) => r.heapUsedAfterBytes - r.heapUsedBeforeBytes;
    const added = report.sessions - (previous?.sessions ?? 0);
    return {
      sessions: report.sessions,
      bytes_per_session: report.bytesPerSession,
      step_bytes_per_session: (growth(report) - (previous ? growth(previous) : 0)) / added,
      snapshot_bytes: report.snapshotBytes,
      snapshot_bytes_per_session: report.snapshotBytes / report.sessions,
      step_snapshot_bytes_per_session:
        (report.snapshotBytes - (previous?.snapshotBytes ?? 0)) / added,
      snapshot_capture_ms: report.snapshotCaptureMs,
    };
  });
}

function restartRows(points: readonly ScalingRestartPoint[]): RestartRow[] {
  return points.map((point, index) => {
    const previous = index > 0 ? points[index - 1] : undefined;
    const slope = (now: number, before: number) =>
      previous
        ? ((now - before) * 1000) /
          ((point.withoutSnapshot.journalOps - previous.withoutSnapshot.journalOps) / 1000)
        : null;
    return {
      journal_ops: point.withoutSnapshot.journalOps,
      restart_ms_without_snapshot: point.withoutSnapshot.medianReadyAfterMs,
      restart_ms_with_snapshot: point.withSnapshot.medianReadyAfterMs,
      step_us_per_1k_ops_without_snapshot: slope(
        point.withoutSnapshot.medianReadyAfterMs,
        previous?.withoutSnapshot.medianReadyAfterMs ?? 0,
      ),
      step_us_per_1k_ops_with_snapshot: slope(
        point.withSnapshot.medianReadyAfterMs,
        previous?.withSnapshot.medianReadyAfterMs ?? 0,
      ),
      replay_eps: point.withoutSnapshot.replay.entriesPerSecond,
    };
  });
}
