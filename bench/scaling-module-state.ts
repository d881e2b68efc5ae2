import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EventLoopStalls } from '@once/metrics';
import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type EventLoopScrape, scrapeEventLoop } from './event-loop-scrape';
import { freePort } from './free-port';
import { type LevelDbActivity, readLevelDbActivity } from './leveldb-info-log';
import { type LoadReport } from './load-report';
import { runLoad } from './load-runner';
import { type ModuleStateFillReport } from './module-state-fill';
import { OnceService, type ReplayReport, type SnapshotWrite } from './once-service';
import { type ProcessIo, readProcessIo } from './process-io';
import { type ScalingPlan } from './scaling-plan';
import { median } from './stats';
import { describeLatency } from './throughput-steps';

/** What the service wrote to storage during the closed loop. */
export interface ModuleStateDisk {
  /** OK answers of the closed loop (warm-up included: the counters span it). */
  readonly requests: number;
  /** `/proc/<pid>/io` of the service over the closed loop (absent where unreadable). */
  readonly writeBytes?: number;
  readonly cancelledWriteBytes?: number;
  /** LevelDB's info log over the same span: tables flushed and compacted, bytes. */
  readonly leveldbFlushedBytes: number;
  readonly leveldbCompactionBytes: number;
  /** The data directory after the run (journal, snapshots, keyed records). */
  readonly dataDirBytes: number;
}

/** The restarts after SIGKILL of one size. */
export interface ModuleStateRestart {
  /** Spawn to first PING answering ready, per restart. */
  readonly readyAfterMs: readonly number[];
  readonly medianReadyAfterMs: number;
  /** The boot's replay (of the last restart): from the newest snapshot to the journal's end. */
  readonly replay: ReplayReport;
}

/** One size of the module-state series. */
export interface ModuleStatePoint {
  /** Ledger accounts opened (each a keyed record). */
  readonly entities: number;
  /** ONCE_KEYED_CACHE_ENTRIES given to the service; null: its default. */
  readonly keyedCacheEntries: number | null;
  readonly fill: ModuleStateFillReport;
  /** Closed loop: deposits into random accounts. */
  readonly closed: LoadReport;
  /** Open loop at half the closed loop's throughput, same deposits. */
  readonly halfPeak: LoadReport;
  /** Event-loop delays per phase, scraped from the service's /metrics. */
  readonly stalls: {
    readonly fill: EventLoopScrape;
    readonly closed: EventLoopScrape;
    readonly halfPeak: EventLoopScrape;
  };
  /**
   * The longest event-loop delay of the bench's own process (idle, waiting
   * for its children) over the same phases, ms: what the machine's
   * scheduler alone costs a process that has nothing to do. A service's
   * stall near it is the machine's, not the service's.
   */
  readonly controlStallMs: {
    readonly fill: number;
    readonly closed: number;
    readonly halfPeak: number;
  };
  /** Snapshots the service wrote during the whole run (fill and load). */
  readonly snapshots: readonly SnapshotWrite[];
  readonly disk: ModuleStateDisk;
  /** The journal's end when the service was killed. */
  readonly journalOps: number;
  readonly restart: ModuleStateRestart;
}

/** A fill is sized in accounts, not time: even this rate must be able to finish it. */
const FILL_OPS_PER_SECOND_FLOOR = 1000;
/** Connecting and REGISTERing the fill's clients on a busy machine. */
const FILL_SETUP_ALLOWANCE_MS = 600_000;

/**
 * Module state against its size: for each size N of the plan, one reference
 * service on a fresh data directory, every setting at its default
 * (snapshots every ONCE_SNAPSHOT_EVERY_OPS, fsync on; the keyed cache at its
 * default, or `keyedCacheEntries`) but the operations listener, on:
 * 1. N `ledger.open` through the SDK (module-state-fill: many clients, each
 *    pipelining), so the ledger holds N accounts, each a keyed record;
 * 2. a closed loop of `ledger.deposit` into random accounts (the bench's
 *    connections × depth), its throughput; then an open loop at half that,
 *    its latency;
 * 3. the service's event-loop delays scraped from /metrics between phases
 *    (each scrape starts a new window), its storage writes from
 *    /proc/<pid>/io and LevelDB's info log around the closed loop;
 * 4. SIGKILL, and `restartRepeats` restarts timed to ready: the boot restores
 *    the newest snapshot and replays the journal after it; the records stay
 *    on disk, so the state's size should not show.
 * The same load against every N is what makes the rows comparable: a curve
 * that bends is what the state's size costs.
 */
export async function measureModuleStates(
  context: BenchContext,
  plan: ScalingPlan,
): Promise<ModuleStatePoint[]> {
  const points: ModuleStatePoint[] = [];
  for (const entities of plan.moduleStates) {
    points.push(await measureModuleState(context, plan, entities));
  }
  return points;
}

async function measureModuleState(
  context: BenchContext,
  plan: ScalingPlan,
  entities: number,
): Promise<ModuleStatePoint> {
  const { options, log } = context;
  const root = join(context.workDir, `module-state-${entities}`);
  const dataDir = join(root, 'data');
  const leveldb = join(dataDir, 'leveldb');
  const keyedCacheEntries = plan.keyedCacheEntries ?? null;
  const env: Record<string, string> =
    keyedCacheEntries === null ? {} : { ONCE_KEYED_CACHE_ENTRIES: String(keyedCacheEntries) };
  const metricsPort = await freePort();
  const service = await OnceService.start({
    build: context.build,
    dataDir,
    adminPassword: context.adminPassword,
    env: { ...env, ONCE_METRICS_PORT: String(metricsPort) },
  });
  const accounts = ['--accounts', String(entities)];
  const control = new EventLoopStalls();
  let point: Omit<ModuleStatePoint, 'restart'>;
  try {
    await scrapeEventLoop(metricsPort);
    control.start();
    const fill = await runBenchChild<ModuleStateFillReport>(
      context.build,
      'module-state-fill',
      [
        '--port',
        String(service.port),
        ...accounts,
        '--clients',
        String(plan.moduleStateFillClients),
        '--depth',
        String(options.depth),
      ],
      {
        env: { ONCE_ADMIN_PASSWORD: context.adminPassword },
        timeoutMs: (entities * 1000) / FILL_OPS_PER_SECOND_FLOOR + FILL_SETUP_ALLOWANCE_MS,
      },
    );
    const fillStall = await scrapeEventLoop(metricsPort);
    const fillControl = control.takeWindow().maxMs;
    log(
      `  ${entities} accounts opened through the SDK at ${Math.round(fill.requestsPerSecond)} req/s (${fill.clients} clients × ${fill.depth}); longest stall ${fillStall.maxMs.toFixed(1)} ms, ${fillStall.maxOnCpuMs.toFixed(1)} ms on CPU (the bench's own, idle: ${fillControl.toFixed(1)} ms)`,
    );

    const ioBefore = await readProcessIo(service.pid);
    const leveldbBefore = await readLevelDbActivity(leveldb);
    const closed = await runLoad('once', service.port, { kind: 'closed' }, context, accounts);
    const ioAfter = await readProcessIo(service.pid);
    const leveldbAfter = await readLevelDbActivity(leveldb);
    const closedStall = await scrapeEventLoop(metricsPort);
    const closedControl = control.takeWindow().maxMs;
    log(
      `  deposits into random accounts, ${options.connections} × ${options.depth}: ${Math.round(closed.requestsPerSecond)} req/s; longest stall ${closedStall.maxMs.toFixed(1)} ms, ${closedStall.maxOnCpuMs.toFixed(1)} on CPU (idle bench: ${closedControl.toFixed(1)} ms)`,
    );

    const halfPeak = await runLoad(
      'once',
      service.port,
      { kind: 'open', ratePerSecond: closed.requestsPerSecond / 2 },
      context,
      accounts,
    );
    const halfPeakStall = await scrapeEventLoop(metricsPort);
    const halfPeakControl = control.takeWindow().maxMs;
    log(
      `  open loop at ${Math.round(closed.requestsPerSecond / 2)} req/s: ${describeLatency(halfPeak.latency)}; longest stall ${halfPeakStall.maxMs.toFixed(1)} ms, ${halfPeakStall.maxOnCpuMs.toFixed(1)} on CPU (idle bench: ${halfPeakControl.toFixed(1)} ms)`,
    );
    const journalOps = await service.commitOp();
    point = {
      entities,
      keyedCacheEntries,
      fill,
      closed,
      halfPeak,
      stalls: { fill: fillStall, closed: closedStall, halfPeak: halfPeakStall },
      controlStallMs: { fill: fillControl, closed: closedControl, halfPeak: halfPeakControl },
      snapshots: service.snapshotWrites,
      disk: {
        requests: closed.completed,
        ...ioDelta(ioBefore, ioAfter),
        ...leveldbDelta(leveldbBefore, leveldbAfter),
        dataDirBytes: 0,
      },
      journalOps,
    };
  } finally {
    control.stop();
    await service.crash();
  }
  point = { ...point, disk: { ...point.disk, dataDirBytes: await directoryBytes(dataDir) } };

  const readyAfterMs: number[] = [];
  let replay: ReplayReport | undefined;
  for (let i = 0; i < plan.restartRepeats; i++) {
    const restarted = await OnceService.start({
      build: context.build,
      dataDir,
      adminPassword: context.adminPassword,
      env,
    });
    await restarted.crash();
    readyAfterMs.push(restarted.readyAfterMs);
    replay = restarted.replay;
  }
  if (!replay) throw new Error('no restart was timed');
  const restart = { readyAfterMs, medianReadyAfterMs: median(readyAfterMs), replay };
  log(
    `  restart after SIGKILL at op ${point.journalOps}: ${Math.round(restart.medianReadyAfterMs)} ms to ready (snapshot at op ${replay.snapshotOp}, ${replay.totalEntries} entries replayed)`,
  );
  await rm(root, { recursive: true, force: true });
  return { ...point, restart };
}

function ioDelta(
  before: ProcessIo | undefined,
  after: ProcessIo | undefined,
): Pick<ModuleStateDisk, 'writeBytes' | 'cancelledWriteBytes'> {
  if (before === undefined || after === undefined) return {};
  return {
    writeBytes: after.writeBytes - before.writeBytes,
    cancelledWriteBytes: after.cancelledWriteBytes - before.cancelledWriteBytes,
  };
}

function leveldbDelta(
  before: LevelDbActivity,
  after: LevelDbActivity,
): Pick<ModuleStateDisk, 'leveldbFlushedBytes' | 'leveldbCompactionBytes'> {
  return {
    leveldbFlushedBytes: after.flushedBytes - before.flushedBytes,
    leveldbCompactionBytes: after.compactionBytes - before.compactionBytes,
  };
}

/** Bytes of every file under `dir`. */
async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}
