import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { runBenchChild } from './bench-children';
import { type ScalingLoadReport } from './scaling-load';
import { OnceService, type ReplayReport } from './once-service';
import { type ScalingPlan } from './scaling-plan';
import { median } from './stats';
import { type StopSnapshot, writeStopSnapshot } from './stop-snapshot';

/** A fill is sized in ops, not time: even this rate must be able to finish it. */
const FILL_OPS_PER_SECOND_FLOOR = 1000;
/** Setting up a thousand sessions (a scrypt each) on a busy machine. */
const SETUP_ALLOWANCE_MS = 600_000;

/** Restarts of one data directory at one journal length. */
export interface ScalingRestartCase {
  /** The journal's end at boot: snapshot op + entries replayed after it. */
  readonly journalOps: number;
  /** Spawn to first PING answering ready, per restart. */
  readonly readyAfterMs: readonly number[];
  readonly medianReadyAfterMs: number;
  /** The replay of the last restart. */
  readonly replay: ReplayReport;
}

/** One journal length of the restart series. */
export interface ScalingRestartPoint {
  readonly targetOps: number;
  /** Filling the journal from the previous length to this one. */
  readonly fill: { readonly ops: number; readonly requestsPerSecond: number };
  /** After SIGKILL, no snapshot: the whole journal is replayed. */
  readonly withoutSnapshot: ScalingRestartCase;
  /** A copy of the same directory after a graceful stop: replay starts at its snapshot. */
  readonly withSnapshot: ScalingRestartCase;
  readonly stopSnapshot: StopSnapshot;
}

/**
 * Restart time against journal length. One data directory (snapshots off)
 * is filled by load to each length in turn, the next fill continuing where
 * the previous one stopped, so the longest journal costs one fill, not a
 * fill per length. At each length the service is SIGKILLed and restarted
 * `restartRepeats` times (no snapshot: the whole journal is replayed); then
 * a copy of the directory is booted once and stopped gracefully, which
 * writes a snapshot at the journal's end as an operator's restart does, and
 * the copy is restarted as many times (the replay starts at the snapshot).
 * The fill is a scaling-load child with `fillConnections` sessions of the
 * usual closed loop (depth and payload as for the throughput figures): more
 * connections make bigger group commits, so the fill goes faster with the
 * very same entries.
 */
export async function measureScalingRestarts(
  context: BenchContext,
  plan: ScalingPlan,
): Promise<ScalingRestartPoint[]> {
  const root = join(context.workDir, 'scaling-restart');
  const dataDir = join(root, 'journal');
  const copyDir = join(root, 'copy');
  const serviceOptions = {
    build: context.build,
    dataDir,
    adminPassword: context.adminPassword,
    snapshotEveryOps: 0,
  };
  const points: ScalingRestartPoint[] = [];
  try {
    // Length 0 first: a directory holding only its genesis entries, whose
    // restart is the fixed cost (Node, NestJS, LevelDB's open) of every other.
    for (const targetOps of [0, ...[...plan.journalOps].sort((a, b) => a - b)]) {
      const filling = await OnceService.start(serviceOptions);
      let fill: ScalingRestartPoint['fill'] = { ops: 0, requestsPerSecond: 0 };
      try {
        if (targetOps > 0) {
          // Each connection journals a REGISTER and a ledger.open before its deposits.
          const setupOps = 2 * plan.fillConnections;
          const startOp = filling.readyPing.commit;
          const requests = Math.max(plan.fillConnections, targetOps - startOp - setupOps);
          const report = await runBenchChild<ScalingLoadReport>(
            context.build,
            'scaling-load',
            [
              '--port',
              String(filling.port),
              '--connections',
              String(plan.fillConnections),
              '--depth',
              String(context.options.depth),
              '--payload-bytes',
              String(context.options.payloadBytes),
              '--requests',
              String(requests),
            ],
            {
              env: { ONCE_ADMIN_PASSWORD: context.adminPassword },
              timeoutMs: (requests * 1000) / FILL_OPS_PER_SECOND_FLOOR + SETUP_ALLOWANCE_MS,
            },
          );
          const requestsPerSecond = report.fill!.requestsPerSecond;
          const filledOps = await filling.commitOp();
          fill = { ops: filledOps - startOp, requestsPerSecond };
          context.log(
            `  filled to ${filledOps} ops at ${Math.round(requestsPerSecond)} req/s (${plan.fillConnections} connections)`,
          );
        }
      } finally {
        await filling.crash();
      }
      points.push(
        await measureRestartPoint(context, serviceOptions, copyDir, targetOps, fill, plan),
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return points;
}

type ServiceOptions = Parameters<typeof OnceService.start>[0];

/** The restarts at one length: the directory itself (no snapshot), then its copy (stop snapshot). */
async function measureRestartPoint(
  context: BenchContext,
  serviceOptions: ServiceOptions,
  copyDir: string,
  targetOps: number,
  fill: ScalingRestartPoint['fill'],
  plan: ScalingPlan,
): Promise<ScalingRestartPoint> {
  const dataDir = serviceOptions.dataDir;
  const withoutSnapshot = await timeRestarts(serviceOptions, plan.restartRepeats);
  await cp(dataDir, copyDir, { recursive: true });
  const stopSnapshot = await writeStopSnapshot(context.build, copyDir, context.adminPassword);
  const withSnapshot = await timeRestarts(
    { ...serviceOptions, dataDir: copyDir },
    plan.restartRepeats,
  );
  await rm(copyDir, { recursive: true, force: true });
  if (withSnapshot.replay.snapshotOp !== stopSnapshot.op) {
    throw new Error(
      `the copy booted from op ${withSnapshot.replay.snapshotOp}, not from its stop snapshot at op ${stopSnapshot.op}`,
    );
  }
  context.log(
    `  restart at ${withoutSnapshot.journalOps} ops: ${(withoutSnapshot.medianReadyAfterMs / 1000).toFixed(2)} s without snapshot (${withoutSnapshot.replay.entriesPerSecond} entries/s), ${(withSnapshot.medianReadyAfterMs / 1000).toFixed(2)} s from a snapshot at the end (${stopSnapshot.bytes} bytes)`,
  );
  return { targetOps, fill, withoutSnapshot, withSnapshot, stopSnapshot };
}

/** SIGKILL-restarts the service on a directory `repeats` times, timing each to ready. */
async function timeRestarts(
  serviceOptions: ServiceOptions,
  repeats: number,
): Promise<ScalingRestartCase> {
  const readyAfterMs: number[] = [];
  let replay: ReplayReport | undefined;
  for (let i = 0; i < repeats; i++) {
    const restarted = await OnceService.start(serviceOptions);
    await restarted.crash();
    readyAfterMs.push(restarted.readyAfterMs);
    replay = restarted.replay;
  }
  if (!replay) throw new Error('no restart was timed');
  return {
    journalOps: replay.snapshotOp + replay.totalEntries,
    readyAfterMs,
    medianReadyAfterMs: median(readyAfterMs),
    replay,
  };
}
