import { type ScalingRestartPoint } from './scaling-restarts';
import { type ScalingSessionsReport } from './scaling-sessions';
import { type ScalingThroughput } from './scaling-throughput';
import { median } from './stats';

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

/** The figures of `--scaling`: three series, each with its per-step slopes. */
export interface ScalingFigures {
  readonly throughput_by_connections: readonly ThroughputRow[];
  readonly memory_by_sessions: readonly MemoryRow[];
  readonly restart_by_journal_ops: readonly RestartRow[];
}

export function computeScalingFigures(
  throughput: ScalingThroughput,
  sessions: readonly ScalingSessionsReport[],
  restarts: readonly ScalingRestartPoint[],
): ScalingFigures {
  return {
    throughput_by_connections: throughputRows(throughput),
    memory_by_sessions: memoryRows(sessions),
    restart_by_journal_ops: restartRows(restarts),
  };
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
