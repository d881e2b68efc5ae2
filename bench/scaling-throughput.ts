import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type GroupCommitSizes, groupCommitSizes } from './group-commit-sizes';
import { OnceService } from './once-service';
import { type ScalingLoadPoint, type ScalingLoadReport } from './scaling-load';
import { type ScalingPlan } from './scaling-plan';
import { WalRecorder } from './wal-recorder';

/** One window of the throughput series, with the service's group commits inside it. */
export interface ScalingThroughputPoint extends ScalingLoadPoint {
  readonly groupCommits: GroupCommitSizes;
}

/** The throughput series as measured: every window, and how the sessions were set up. */
export interface ScalingThroughput {
  readonly depth: number;
  readonly connectionsOpened: number;
  readonly setupMs: number;
  /** Log files the write-ahead-log recorder missed, sequence gaps: both 0 when complete. */
  readonly missedLogFiles: number;
  readonly sequenceGaps: number;
  readonly points: readonly ScalingThroughputPoint[];
}

/** Slack over the planned windows before the load child counts as hung (set-up included). */
const CHILD_SLACK_MS = 900_000;
const DRAIN_ALLOWANCE_MS = 60_000;

/**
 * Throughput against connections: one reference service on a fresh data
 * directory (snapshots off, fsync on, every other setting at its default, as
 * for `once_rps_64`), one scaling-load child that holds the largest number of
 * sessions and runs the closed loop on the first N of them for each N, and
 * the write-ahead-log recorder, so that each window also says how many
 * entries each synced batch carried (the group commit size is what turns
 * more requests in flight into more throughput).
 */
export async function measureScalingThroughput(
  context: BenchContext,
  plan: ScalingPlan,
): Promise<ScalingThroughput> {
  const { options } = context;
  const root = join(context.workDir, 'scaling-throughput');
  const dataDir = join(root, 'data');
  const recorder = WalRecorder.start(join(dataDir, 'leveldb'));
  const service = await OnceService.start({
    build: context.build,
    dataDir,
    adminPassword: context.adminPassword,
    snapshotEveryOps: 0,
  });
  let report: ScalingLoadReport;
  try {
    const windows = plan.rounds * plan.connections.length;
    report = await runBenchChild<ScalingLoadReport>(
      context.build,
      'scaling-load',
      [
        '--port',
        String(service.port),
        '--connections',
        plan.connections.join(','),
        '--depth',
        String(options.depth),
        '--payload-bytes',
        String(options.payloadBytes),
        '--warmup-ms',
        String(options.warmupMs),
        '--duration-ms',
        String(options.durationMs),
        '--rounds',
        String(plan.rounds),
      ],
      {
        env: { ONCE_ADMIN_PASSWORD: context.adminPassword },
        timeoutMs:
          windows * (options.warmupMs + options.durationMs + DRAIN_ALLOWANCE_MS) + CHILD_SLACK_MS,
      },
    );
  } finally {
    await service.crash();
  }
  const { batches, missedLogFiles, sequenceGaps } = recorder.finish();
  await rm(root, { recursive: true, force: true });
  const failed = report.points.filter((point) => point.errors > 0);
  if (failed.length > 0) {
    throw new Error(
      `scaling-load: requests failed at ${failed.map((p) => p.connections).join(', ')} connections`,
    );
  }
  const points = report.points.map((point) => ({
    ...point,
    groupCommits: groupCommitSizes(batches, point.windowStartEpochMs, point.windowEndEpochMs),
  }));
  for (const point of points) {
    context.log(
      `  ${point.connections} connections × ${options.depth}: ${Math.round(point.requestsPerSecond)} req/s, p50 ${point.latency.p50Ms.toFixed(2)} ms, ${point.groupCommits.avgGroupSize.toFixed(1)} entries per synced batch`,
    );
  }
  if (missedLogFiles > 0 || sequenceGaps > 0) {
    context.log(
      `  warning: ${missedLogFiles} log files missed, ${sequenceGaps} sequence gaps: group sizes are a sample`,
    );
  }
  return {
    depth: options.depth,
    connectionsOpened: report.connectionsOpened,
    setupMs: report.setupMs,
    missedLogFiles,
    sequenceGaps,
    points,
  };
}
