import { join } from 'node:path';
import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type BenchOptions } from './bench-options';
import { type EnvironmentInfo } from './environment-info';
import { type OpenFilesLimit, ensureOpenFilesLimit } from './open-files-limit';
import { type ScalingFigures, computeScalingFigures } from './scaling-figures';
import { type ScalingPlan, scalingPlan } from './scaling-plan';
import { type ScalingRestartPoint, measureScalingRestarts } from './scaling-restarts';
import { type ScalingSessionsReport } from './scaling-sessions';
import { scalingTables } from './scaling-table';
import { type ScalingThroughput, measureScalingThroughput } from './scaling-throughput';

/** The JSON file of `--scaling`: the three series at top level, then what they come from. */
export interface ScalingBenchDocument extends ScalingFigures {
  readonly environment: EnvironmentInfo & { readonly openFiles: OpenFilesLimit };
  readonly settings: Omit<BenchOptions, 'out'>;
  readonly plan: ScalingPlan;
  readonly throughput: ScalingThroughput;
  readonly sessions: readonly ScalingSessionsReport[];
  readonly restarts: readonly ScalingRestartPoint[];
}

/**
 * Descriptors a process may need besides its connections: LevelDB keeps up
 * to 1,000 table files open (classic-level's default), plus logs, pipes
 * and the like.
 */
const OPEN_FILES_BESIDES_CONNECTIONS = 1200;
/** 1M sessions take about a minute on 2 cores; the timeout only catches a hung child. */
const SESSIONS_TIMEOUT_MS = 1_800_000;
/** The heap of a million sessions and their drafts in flight outgrows V8's default limit. */
const SESSIONS_HEAP_MB = 8192;

/**
 * `--scaling`: how cost grows with what a service holds. Throughput against
 * connections, memory and snapshot size against sessions, restart time
 * against journal length, each at the sizes of the profile's plan
 * (scaling-plan.ts), with the per-step slopes that show whether each series
 * is a straight line. See bench/README.md for each series.
 */
export async function runScalingBench(
  context: BenchContext,
  environment: EnvironmentInfo,
): Promise<{ document: ScalingBenchDocument; table: string }> {
  const { options, log } = context;
  const plan = scalingPlan(options);
  const openFiles = ensureOpenFilesLimit(
    Math.max(...plan.connections, plan.fillConnections) + OPEN_FILES_BESIDES_CONNECTIONS,
  );

  log(
    `throughput at ${plan.connections.join(', ')} connections × depth ${options.depth}, ${plan.rounds} rounds (setting up ${Math.max(...plan.connections)} sessions first)`,
  );
  const throughput = await measureScalingThroughput(context, plan);

  log(`memory at ${plan.sessions.join(', ')} sessions`);
  const sessions: ScalingSessionsReport[] = [];
  for (const count of plan.sessions) {
    const report = await runBenchChild<ScalingSessionsReport>(
      context.build,
      'scaling-sessions',
      ['--dir', join(context.workDir, `sessions-${count}`), '--sessions', String(count)],
      {
        nodeArgs: ['--expose-gc', `--max-old-space-size=${SESSIONS_HEAP_MB}`],
        timeoutMs: SESSIONS_TIMEOUT_MS,
      },
    );
    log(
      `  ${count} sessions: ${report.bytesPerSession.toFixed(0)} bytes each, snapshot ${report.snapshotBytes} bytes`,
    );
    sessions.push(report);
  }

  log(`restarts at ${plan.journalOps.join(', ')} ops (and an empty journal)`);
  const restarts = await measureScalingRestarts(context, plan);

  const figures = computeScalingFigures(throughput, sessions, restarts);
  const { out: _out, ...settings } = options;
  return {
    document: {
      ...figures,
      environment: { ...environment, openFiles },
      settings,
      plan,
      throughput,
      sessions,
      restarts,
    },
    table: scalingTables(figures),
  };
}
