import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { killAllChildren, runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { checkTargets, computeFigures } from './bench-figures';
import { runClusterBench } from './cluster-bench';
import { runScalingBench } from './scaling-bench';
import { parseBenchOptions } from './bench-options';
import { snapshotBuild } from './build-snapshot';
import { type BenchDocument, figuresTable, metricsRatioSamples } from './bench-report';
import { type EnvironmentInfo, environmentInfo } from './environment-info';
import { exitOnSignals } from './exit-on-signals';
import { type ScalingSessionsReport } from './scaling-sessions';
import { measureRestarts } from './restart-run';
import { median } from './stats';
import { measureThroughputRuns } from './throughput-runs';

const IDLE_SESSIONS_TIMEOUT_MS = 300_000;

/**
 * `npm run bench [-- --quick | --smoke] [--cluster | --scaling] [--out file] [...]`: the
 * benchmark suite of the once service, measured against NestJS's TCP
 * transport and bare LevelDB on the same machine in the same invocation
 * (`--cluster`: a cluster of three nodes, against bare JetStream). This process only
 * orchestrates: every server, load generator and raw measurement is a child
 * process of its own (see bench/README.md for the method of each figure).
 */
async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv);
  const environment = environmentInfo();
  const startedMs = performance.now();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  // --scaling sets its own connection counts and rounds (scaling-plan.ts).
  const shape = options.scaling
    ? `depth ${options.depth}`
    : `${options.connections} connections × depth ${options.depth}`;
  const runs = options.scaling ? '' : `, ${options.runs} runs`;
  log(
    `once ${options.cluster ? 'cluster ' : options.scaling ? 'scaling ' : ''}bench (${options.profile}): ${shape}, payload ${options.payloadBytes} B${runs}; node ${environment.node}, ${environment.cpuCount} CPUs`,
  );
  // Under the work directory's parent, not os.tmpdir(): /tmp is a tmpfs on
  // many systems, where fsync costs nothing and durable figures would lie.
  await mkdir(options.workDir, { recursive: true });
  const workDir = await mkdtemp(join(options.workDir, 'once-bench-'));
  try {
    const context: BenchContext = {
      options,
      workDir,
      build: await snapshotBuild(workDir),
      adminPassword: randomBytes(16).toString('hex'),
      log,
    };
    const { document, table } = options.cluster
      ? await runClusterBench(context, environment)
      : options.scaling
        ? await runScalingBench(context, environment)
        : await runSingleNodeBench(context, environment);
    const outFile = resolve(options.out);
    await mkdir(dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(document, null, 2)}\n`);
    log('');
    log(table);
    log('');
    log(
      `${environment.command} — ${Math.round((performance.now() - startedMs) / 1000)} s; results in ${outFile}`,
    );
  } finally {
    killAllChildren();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The single-node figures: throughput runs, restarts, memory per idle session. */
async function runSingleNodeBench(
  context: BenchContext,
  environment: EnvironmentInfo,
): Promise<{ document: BenchDocument; table: string }> {
  const { options, workDir, log } = context;
  const { runs, peers, httpPeers } = await measureThroughputRuns(context);
  log(`restarts at ${options.restartOps} ops`);
  const restarts = await measureRestarts(context);
  const idleSessions: ScalingSessionsReport[] = [];
  for (let index = 0; index < options.runs; index++) {
    idleSessions.push(
      await runBenchChild<ScalingSessionsReport>(
        context.build,
        'scaling-sessions',
        ['--dir', join(workDir, `idle-${index}`), '--sessions', String(options.idleSessions)],
        { nodeArgs: ['--expose-gc'], timeoutMs: IDLE_SESSIONS_TIMEOUT_MS },
      ),
    );
  }
  const { out: _out, ...settings } = options;
  const figures = computeFigures(runs, restarts, idleSessions);
  const metricsRatios = metricsRatioSamples(runs);
  const document: BenchDocument = {
    ...figures,
    ...(metricsRatios.length > 0 && { ratio_metrics_on_vs_off: median(metricsRatios) }),
    targets: checkTargets(figures),
    environment,
    settings,
    runs,
    restarts,
    idleSessions,
    peers,
    httpPeers,
  };
  return { document, table: figuresTable(document) };
}

exitOnSignals(killAllChildren);

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
