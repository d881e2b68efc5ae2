import { join } from 'node:path';
import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type BenchOptions } from './bench-options';
import { type EnvironmentInfo } from './environment-info';
import { type OpenFilesLimit, ensureOpenFilesLimit } from './open-files-limit';
import { type ScalingFigures, computeScalingFigures } from './scaling-figures';
import { type ModuleStatePoint, measureModuleStates } from './scaling-module-state';
import { type ScalingPlan, scalingPlan } from './scaling-plan';
import { type ScalingRestartPoint, measureScalingRestarts } from './scaling-restarts';
import { type ScalingSessionsReport } from './scaling-sessions';
import { scalingTables } from './scaling-table';
import { type ScalingThroughput, measureScalingThroughput } from './scaling-throughput';

/** The JSON file of `--scaling`: the series at top level, then what they come from. */
export interface ScalingBenchDocument extends ScalingFigures {
  readonly environment: EnvironmentInfo & { readonly openFiles: OpenFilesLimit };
  readonly settings: Omit<BenchOptions, 'out'>;
  readonly plan: ScalingPlan;
  /** Absent when `--series` left the throughput series out. */
  readonly throughput?: ScalingThroughput;
  readonly sessions: readonly ScalingSessionsReport[];
  readonly restarts: readonly ScalingRestartPoint[];
  readonly moduleStates: readonly ModuleStatePoint[];
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
 * against journal length, throughput, latency, stalls and restart time
 * against the module state's size (ledger accounts), each at the sizes of
 * the profile's plan (scaling-plan.ts), with the per-step slopes or ratios
 * that show whether each series is a straight line. `--series` picks some
 * of them. See bench/README.md for each series.
 */
export async function runScalingBench(
  context: BenchContext,
  environment: EnvironmentInfo,
): Promise<{ document: ScalingBenchDocument; table: string }> {
  const { options, log } = context;
  const plan = scalingPlan(options);
  const series = new Set(options.scalingSeries);
  const openFiles = ensureOpenFilesLimit(
    Math.max(...plan.connections, plan.fillConnections) + OPEN_FILES_BESIDES_CONNECTIONS,
  );

  let throughput: ScalingThroughput | undefined;
  if (series.has('throughput')) {
    log(
      `throughput at ${plan.connections.join(', ')} connections × depth ${options.depth}, ${plan.rounds} rounds (setting up ${Math.max(...plan.connections)} sessions first)`,
    );
    throughput = await measureScalingThroughput(context, plan);
  }

  const sessions: ScalingSessionsReport[] = [];
  if (series.has('sessions')) log(`memory at ${plan.sessions.join(', ')} sessions`);
  for (const count of series.has('sessions') ? plan.sessions : []) {
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

  let restarts: ScalingRestartPoint[] = [];
  if (series.has('restarts')) {
    log(`restarts at ${plan.journalOps.join(', ')} ops (and an empty journal)`);
    restarts = await measureScalingRestarts(context, plan);
  }

  let moduleStates: ModuleStatePoint[] = [];
  if (series.has('module-state')) {
    log(
      `module state at ${plan.moduleStates.join(', ')} ledger accounts (keyed cache: ${plan.keyedCacheEntries ?? "the service's default"})`,
    );
    moduleStates = await measureModuleStates(context, plan);
  }

  const figures = computeScalingFigures(throughput, sessions, restarts, moduleStates);
  const { out: _out, ...settings } = options;
  return {
    document: {
      ...figures,
      environment: { ...environment, openFiles },
      settings,
      plan,
      ...(throughput && { throughput }),
      sessions,
      restarts,
      moduleStates,
    },
    table: scalingTables(figures),
  };
}
