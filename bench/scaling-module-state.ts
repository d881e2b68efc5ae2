import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EventLoopStalls } from '@once/metrics';
import { runBenchChild } from './bench-children';
import { type BenchContext } from './bench-context';
import { type EventLoopScrape, longestScrape, scrapeEventLoop } from './event-loop-scrape';
import { freePort } from './free-port';
import { type LevelDbActivity, readLevelDbActivity } from './leveldb-info-log';
import { type LoadReport } from './load-report';
import { runLoad } from './load-runner';
import { type ModuleStateFillReport } from './module-state-fill';
import { OnceService, type ReplayReport, type SnapshotWrite } from './once-service';
import { waitForIdle } from './process-cpu';
import { type ProcessIo, readProcessIo } from './process-io';
import { type ScalingPlan } from './scaling-plan';
import { median, medianBy } from './stats';
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

/** One round's figures of one size. */
export interface ModuleStateRound {
  /** Closed loop: OK answers per second. */
  readonly rps: number;
  /** Open loop at half the size's median closed-loop throughput. */
  readonly halfPeakP50Ms: number;
  readonly halfPeakP99Ms: number;
}

/** One size of the module-state series. */
export interface ModuleStatePoint {
  /** Ledger accounts opened (each a keyed record). */
  readonly entities: number;
  /** ONCE_KEYED_CACHE_ENTRIES given to the service; null: its default. */
  readonly keyedCacheEntries: number | null;
  readonly fill: ModuleStateFillReport;
  /**
   * Each round's figures, in round order: round r of every size ran in the
   * same stretch of time, so a ratio to another size is taken round by
   * round (see `scaling-figures.ts`).
   */
  readonly rounds: readonly ModuleStateRound[];
  /** Closed loop: deposits into random accounts; the round of median throughput. */
  readonly closed: LoadReport;
  /** Open loop at half the median closed-loop throughput, same deposits; the round of median p99. */
  readonly halfPeak: LoadReport;
  /**
   * Event-loop delays per phase, scraped from the service's /metrics; the
   * round with the longest. Each phase starts once its clients are
   * connected: `setup` is the longest over the connecting of the fill's
   * and every load's clients (a scrypt per REGISTER, on the service's
   * thread pool), apart from what persistence costs.
   */
  readonly stalls: {
    readonly setup: EventLoopScrape;
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
  /**
   * Measurements started before every service was idle (the wait for it
   * timed out): another service's background work may be in them.
   */
  readonly measuredBusy: number;
  /** Snapshots the service wrote during the whole run (fill and load). */
  readonly snapshots: readonly SnapshotWrite[];
  /** Over every closed-loop round. */
  readonly disk: ModuleStateDisk;
  /** The journal's end when the service was killed. */
  readonly journalOps: number;
  readonly restart: ModuleStateRestart;
}

/** A fill is sized in accounts, not time: even this rate must be able to finish it. */
const FILL_OPS_PER_SECOND_FLOOR = 1000;
/** Connecting and REGISTERing the fill's clients on a busy machine. */
const FILL_SETUP_ALLOWANCE_MS = 600_000;

/** One size's service, filled, while the rounds run. */
interface Stand {
  readonly entities: number;
  readonly root: string;
  readonly dataDir: string;
  readonly env: Record<string, string>;
  /** ONCE_KEYED_CACHE_ENTRIES given to the service; null: its default. */
  readonly keyedCacheEntries: number | null;
  readonly service: OnceService;
  readonly metricsPort: number;
  readonly fill: ModuleStateFillReport;
  readonly fillStall: EventLoopScrape;
  readonly fillControlMs: number;
  readonly closed: Measured[];
  readonly halfPeak: Measured[];
  readonly ios: Array<Pick<ModuleStateDisk, 'writeBytes' | 'cancelledWriteBytes'>>;
  readonly leveldb: Array<Pick<ModuleStateDisk, 'leveldbFlushedBytes' | 'leveldbCompactionBytes'>>;
  measuredBusy: number;
}

/** One load of one round, with the service's and the bench's stalls over it. */
interface Measured {
  readonly report: LoadReport;
  readonly stall: EventLoopScrape;
  readonly controlMs: number;
}

/**
 * Module state against its size: for each size N of the plan, one reference
 * service on a fresh data directory, every setting at its default
 * (snapshots every ONCE_SNAPSHOT_EVERY_OPS, checkpoints, fsync on; the keyed
 * cache at its default, or `keyedCacheEntries`) but the operations listener:
 * 1. N `ledger.open` through the SDK (module-state-fill: many clients, each
 *    pipelining), so the ledger holds N accounts, each a keyed record; every
 *    size's service is filled first, and stays up;
 * 2. `moduleStateRounds` rounds of a closed loop of `ledger.deposit` into
 *    random accounts (the bench's connections × depth) against each size in
 *    turn (the order reversed every other round), its throughput; then as
 *    many rounds of an open loop at half the size's median throughput, its
 *    latency. Each load starts once every service is idle (no compaction of
 *    another's left running). Interleaved rounds put every size's round r
 *    in the same stretch of time: a machine shared with other work drifts
 *    by more than the sizes differ, and a ratio taken round by round, then
 *    its median, does not see the drift;
 * 3. the service's event-loop delays scraped from /metrics around each load
 *    (each scrape starts a new window), its storage writes from
 *    /proc/<pid>/io and LevelDB's info log around each closed loop;
 * 4. SIGKILL, and `restartRepeats` restarts timed to ready: the boot restores
 *    the newest checkpoint and replays the journal after it; the records stay
 *    on disk, so the state's size should not show.
 * The same load against every N is what makes the rows comparable: a curve
 * that bends is what the state's size costs.
 */
export async function measureModuleStates(
  context: BenchContext,
  plan: ScalingPlan,
): Promise<ModuleStatePoint[]> {
  const { options, log } = context;
  const control = new EventLoopStalls();
  control.start();
  const stands: Stand[] = [];
  const points: Array<Omit<ModuleStatePoint, 'restart'>> = [];
  try {
    for (const entities of plan.moduleStates) {
      stands.push(await fillStand(context, plan, entities, control));
    }
    const pids = stands.map((stand) => stand.service.pid);
    for (let round = 0; round < plan.moduleStateRounds; round++) {
      for (const stand of inRoundOrder(stands, round)) {
        await measureOne(context, stand, pids, control, { kind: 'closed' });
      }
    }
    for (const stand of stands) {
      const rps = medianClosed(stand);
      log(
        `  ${stand.entities} accounts, deposits into random accounts, ${options.connections} × ${options.depth}: ${describeRounds(
          stand.closed.map((m) => m.report.requestsPerSecond),
          'req/s',
        )}; median ${Math.round(rps.report.requestsPerSecond)} req/s`,
      );
    }
    for (let round = 0; round < plan.moduleStateRounds; round++) {
      for (const stand of inRoundOrder(stands, round)) {
        const rps = medianClosed(stand);
        await measureOne(context, stand, pids, control, {
          kind: 'open',
          ratePerSecond: rps.report.requestsPerSecond / 2,
        });
      }
    }
    for (const stand of stands) {
      points.push(await pointOf(stand));
    }
  } finally {
    control.stop();
    for (const stand of stands) await stand.service.crash();
  }
  const measured: ModuleStatePoint[] = [];
  for (const [index, stand] of stands.entries()) {
    const point = points[index];
    const dataDirBytes = await directoryBytes(stand.dataDir);
    const restart = await measureRestarts(context, plan, stand, point.journalOps);
    measured.push({ ...point, disk: { ...point.disk, dataDirBytes }, restart });
    await rm(stand.root, { recursive: true, force: true });
  }
  return measured;
}

async function fillStand(
  context: BenchContext,
  plan: ScalingPlan,
  entities: number,
  control: EventLoopStalls,
): Promise<Stand> {
  const { options, log } = context;
  const root = join(context.workDir, `module-state-${entities}`);
  const dataDir = join(root, 'data');
  const keyedCacheEntries = plan.keyedCacheEntries;
  const env: Record<string, string> =
    keyedCacheEntries === undefined ? {} : { ONCE_KEYED_CACHE_ENTRIES: String(keyedCacheEntries) };
  const metricsPort = await freePort();
  const service = await OnceService.start({
    build: context.build,
    dataDir,
    adminPassword: context.adminPassword,
    env: { ...env, ONCE_METRICS_PORT: String(metricsPort) },
  });
  try {
    await scrapeEventLoop(metricsPort);
    control.takeWindow();
    const fill = await runBenchChild<ModuleStateFillReport>(
      context.build,
      'module-state-fill',
      [
        '--port',
        String(service.port),
        '--accounts',
        String(entities),
        '--clients',
        String(plan.moduleStateFillClients),
        '--depth',
        String(options.depth),
        '--metrics-port',
        String(metricsPort),
      ],
      {
        env: { ONCE_ADMIN_PASSWORD: context.adminPassword },
        timeoutMs: (entities * 1000) / FILL_OPS_PER_SECOND_FLOOR + FILL_SETUP_ALLOWANCE_MS,
      },
    );
    const fillStall = await scrapeEventLoop(metricsPort);
    const fillControlMs = control.takeWindow().maxMs;
    log(
      `  ${entities} accounts opened through the SDK at ${Math.round(fill.requestsPerSecond)} req/s (${fill.clients} clients × ${fill.depth}); longest stall ${fillStall.maxMs.toFixed(1)} ms, ${fillStall.maxOnCpuMs.toFixed(1)} ms on CPU (the bench's own, idle: ${fillControlMs.toFixed(1)} ms; while the clients connected: ${fill.setupStall?.maxMs.toFixed(1) ?? '-'} ms)`,
    );
    return {
      entities,
      root,
      dataDir,
      env,
      keyedCacheEntries: keyedCacheEntries ?? null,
      service,
      metricsPort,
      fill,
      fillStall,
      fillControlMs,
      closed: [],
      halfPeak: [],
      ios: [],
      leveldb: [],
      measuredBusy: 0,
    };
  } catch (error) {
    await service.crash();
    throw error;
  }
}

/** One load against `stand` once every service is idle, recorded in its rounds. */
async function measureOne(
  context: BenchContext,
  stand: Stand,
  pids: ReadonlyArray<number | undefined>,
  control: EventLoopStalls,
  mode: { kind: 'closed' } | { kind: 'open'; ratePerSecond: number },
): Promise<void> {
  const idle = await waitForIdle(pids);
  if (!idle.idle) {
    stand.measuredBusy++;
    context.log(
      `  (the services were not idle after ${Math.round(idle.waitedMs / 1000)} s: measuring ${stand.entities} accounts anyway)`,
    );
  }
  const leveldbDir = join(stand.dataDir, 'leveldb');
  await scrapeEventLoop(stand.metricsPort);
  control.takeWindow();
  const ioBefore = mode.kind === 'closed' ? await readProcessIo(stand.service.pid) : undefined;
  const leveldbBefore = mode.kind === 'closed' ? await readLevelDbActivity(leveldbDir) : undefined;
  const report = await runLoad('once', stand.service.port, mode, context, [
    '--accounts',
    String(stand.entities),
    '--metrics-port',
    String(stand.metricsPort),
  ]);
  if (mode.kind === 'closed') {
    stand.ios.push(ioDelta(ioBefore, await readProcessIo(stand.service.pid)));
    stand.leveldb.push(leveldbDelta(leveldbBefore!, await readLevelDbActivity(leveldbDir)));
  }
  const stall = await scrapeEventLoop(stand.metricsPort);
  const controlMs = control.takeWindow().maxMs;
  (mode.kind === 'closed' ? stand.closed : stand.halfPeak).push({ report, stall, controlMs });
  if (mode.kind === 'open') {
    context.log(
      `  ${stand.entities} accounts, open loop at ${Math.round(mode.ratePerSecond)} req/s: ${describeLatency(report.latency)}; longest stall ${stall.maxMs.toFixed(1)} ms, ${stall.maxOnCpuMs.toFixed(1)} on CPU (idle bench: ${controlMs.toFixed(1)} ms)`,
    );
  }
}

/** A size's figures from its rounds, and the journal's end now. */
async function pointOf(stand: Stand): Promise<Omit<ModuleStatePoint, 'restart'>> {
  const rounds = stand.closed.map((closed, round) => ({
    rps: closed.report.requestsPerSecond,
    halfPeakP50Ms: stand.halfPeak[round].report.latency.p50Ms,
    halfPeakP99Ms: stand.halfPeak[round].report.latency.p99Ms,
  }));
  const setups = [
    stand.fill,
    ...stand.closed.map((m) => m.report),
    ...stand.halfPeak.map((m) => m.report),
  ]
    .map((report) => report.setupStall)
    .filter((scrape): scrape is EventLoopScrape => scrape !== undefined);
  if (setups.length === 0) throw new Error('no setup stall was scraped');
  return {
    entities: stand.entities,
    keyedCacheEntries: stand.keyedCacheEntries,
    fill: stand.fill,
    rounds,
    closed: medianClosed(stand).report,
    halfPeak: medianBy(stand.halfPeak, (measured) => measured.report.latency.p99Ms).report,
    stalls: {
      setup: longestScrape(setups),
      fill: stand.fillStall,
      closed: longestScrape(stand.closed.map((measured) => measured.stall)),
      halfPeak: longestScrape(stand.halfPeak.map((measured) => measured.stall)),
    },
    controlStallMs: {
      fill: stand.fillControlMs,
      closed: Math.max(...stand.closed.map((measured) => measured.controlMs)),
      halfPeak: Math.max(...stand.halfPeak.map((measured) => measured.controlMs)),
    },
    measuredBusy: stand.measuredBusy,
    snapshots: stand.service.snapshotWrites,
    disk: {
      requests: stand.closed.reduce((total, measured) => total + measured.report.completed, 0),
      ...ioTotal(stand.ios),
      leveldbFlushedBytes: stand.leveldb.reduce((t, l) => t + l.leveldbFlushedBytes, 0),
      leveldbCompactionBytes: stand.leveldb.reduce((t, l) => t + l.leveldbCompactionBytes, 0),
      dataDirBytes: 0,
    },
    journalOps: await stand.service.commitOp(),
  };
}

async function measureRestarts(
  context: BenchContext,
  plan: ScalingPlan,
  stand: Stand,
  journalOps: number,
): Promise<ModuleStateRestart> {
  const readyAfterMs: number[] = [];
  let replay: ReplayReport | undefined;
  for (let i = 0; i < plan.restartRepeats; i++) {
    const restarted = await OnceService.start({
      build: context.build,
      dataDir: stand.dataDir,
      adminPassword: context.adminPassword,
      env: stand.env,
    });
    await restarted.crash();
    readyAfterMs.push(restarted.readyAfterMs);
    replay = restarted.replay;
  }
  if (!replay) throw new Error('no restart was timed');
  const restart = { readyAfterMs, medianReadyAfterMs: median(readyAfterMs), replay };
  context.log(
    `  ${stand.entities} accounts, restart after SIGKILL at op ${journalOps}: ${Math.round(restart.medianReadyAfterMs)} ms to ready (snapshot at op ${replay.snapshotOp}, ${replay.totalEntries} entries replayed)`,
  );
  return restart;
}

/** The closed-loop round of median throughput (of an even count, the slower middle one). */
function medianClosed(stand: Stand): Measured {
  return medianBy(stand.closed, (measured) => -measured.report.requestsPerSecond);
}

/** The sizes in round `round`'s order: ascending, descending every other round. */
function inRoundOrder<T>(stands: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? stands : [...stands].reverse();
}

function describeRounds(values: readonly number[], unit: string): string {
  return `${values.map((value) => Math.round(value)).join(', ')} ${unit} by round`;
}

/** The loads' bytes written, summed; none when some load's were not read (no /proc). */
function ioTotal(
  ios: ReadonlyArray<Pick<ModuleStateDisk, 'writeBytes' | 'cancelledWriteBytes'>>,
): Pick<ModuleStateDisk, 'writeBytes' | 'cancelledWriteBytes'> {
  let writeBytes = 0;
  let cancelledWriteBytes = 0;
  for (const io of ios) {
    if (io.writeBytes === undefined || io.cancelledWriteBytes === undefined) return {};
    writeBytes += io.writeBytes;
    cancelledWriteBytes += io.cancelledWriteBytes;
  }
  return { writeBytes, cancelledWriteBytes };
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
