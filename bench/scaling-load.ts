import { Command } from 'commander';
import { nonNegativeInteger, positiveInteger } from './cli-numbers';
import { runClosedLoop, runFixedCount } from './load-drivers';
import { type LatencySummary } from './latency-samples';
import { OnceLoadConnection } from './once-load-connection';
import { PhasedLoadStats } from './phased-load-stats';
import { sleep } from './sleep';

/** One closed-loop window at one connection count. */
export interface ScalingLoadPoint {
  readonly connections: number;
  /** Which round over the connection counts it belongs to (from 0). */
  readonly round: number;
  /** OK answers inside the window, per second. */
  readonly requestsPerSecond: number;
  readonly errors: number;
  /** Socket write to reply, of the requests sent inside the window. */
  readonly latency: LatencySummary;
  readonly windowStartEpochMs: number;
  readonly windowEndEpochMs: number;
}

/** The JSON line scaling-load prints. */
export interface ScalingLoadReport {
  /** Sessions opened before the first window (the largest connection count). */
  readonly connectionsOpened: number;
  /** Time to open, REGISTER and set up all of them. */
  readonly setupMs: number;
  /** The closed-loop windows (none with `--requests`). */
  readonly points: readonly ScalingLoadPoint[];
  /** `--requests`: the fixed-count fill over all the sessions. */
  readonly fill?: { readonly requests: number; readonly requestsPerSecond: number };
}

/** The administrator the reference service creates with a new data directory. */
const ADMIN_USERNAME = 'admin';
/**
 * Sessions set up at once. Each REGISTER costs the service a scrypt (16 MiB,
 * tens of ms of a core): a thousand at once would queue past the load
 * connection's setup timeout.
 */
const SETUP_BATCH = 16;
/** A closed loop's last answers arrive within this after its window. */
const DRAIN_TIMEOUT_MS = 60_000;
const DRAIN_POLL_MS = 5;

/**
 * Child entry: the throughput series of `--scaling`. Opens as many once
 * sessions as the largest connection count (each its own connection,
 * REGISTERed as `admin` with ONCE_ADMIN_PASSWORD, its own ledger account),
 * then, `--rounds` times, runs a closed loop of `--depth` in flight per
 * connection on the first N of them for each N of `--connections`
 * (ascending in even rounds, descending in odd ones, so that neither end
 * always runs first), waiting for every answer between two windows.
 * Sessions are set up once because a REGISTER costs a scrypt; the unused
 * ones stay open and idle. With `--requests` it fills a journal instead:
 * that many requests over all the sessions, `--depth` in flight each (the
 * plain load generator sets up all its sessions at once, which a thousand
 * scrypts would not survive). Prints one {@link ScalingLoadReport} line.
 */
async function main(): Promise<void> {
  const options = new Command()
    .option('--host <host>', 'server host', '127.0.0.1')
    .requiredOption('--port <port>', 'server port', positiveInteger)
    .requiredOption('--connections <counts>', 'comma-separated connection counts', countList)
    .requiredOption('--depth <count>', 'requests in flight per connection', positiveInteger)
    .requiredOption('--payload-bytes <bytes>', 'JSON bytes of each payload', positiveInteger)
    .option('--warmup-ms <ms>', 'warm-up before each window', nonNegativeInteger, 0)
    .option('--duration-ms <ms>', 'each measurement window', positiveInteger, 1000)
    .option('--rounds <count>', 'rounds over all connection counts', positiveInteger, 1)
    .option('--requests <count>', 'fill: this many requests instead of windows', positiveInteger)
    .parse(process.argv)
    .opts<{
      host: string;
      port: number;
      connections: number[];
      depth: number;
      payloadBytes: number;
      warmupMs: number;
      durationMs: number;
      rounds: number;
      requests?: number;
    }>();

  const stats = new PhasedLoadStats();
  const target = {
    host: options.host,
    port: options.port,
    payloadBytes: options.payloadBytes,
    username: ADMIN_USERNAME,
    password: process.env.ONCE_ADMIN_PASSWORD ?? '',
  };
  const setupStartMs = performance.now();
  const opened: OnceLoadConnection[] = [];
  const total = Math.max(...options.connections);
  while (opened.length < total) {
    const batch = Math.min(SETUP_BATCH, total - opened.length);
    opened.push(
      ...(await Promise.all(
        Array.from({ length: batch }, () => OnceLoadConnection.open(target, stats)),
      )),
    );
  }
  const setupMs = performance.now() - setupStartMs;
  if (options.requests !== undefined) {
    const fillStartMs = performance.now();
    await runFixedCount(opened, options.depth, options.requests);
    const elapsedMs = performance.now() - fillStartMs;
    for (const connection of opened) connection.close();
    const { completed, errors } = stats.report();
    if (errors > 0) throw new Error(`${errors} fill requests failed`);
    const report: ScalingLoadReport = {
      connectionsOpened: total,
      setupMs,
      points: [],
      fill: { requests: completed, requestsPerSecond: (completed * 1000) / elapsedMs },
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }

  const ascending = [...options.connections].sort((a, b) => a - b);
  const points: ScalingLoadPoint[] = [];
  const window = { warmupMs: options.warmupMs, durationMs: options.durationMs };
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? ascending : [...ascending].reverse();
    for (const connections of order) {
      stats.nextPhase();
      const using = opened.slice(0, connections);
      const times = await runClosedLoop(using, options.depth, window, stats);
      await drain(using);
      const measured = stats.report();
      points.push({
        connections,
        round,
        requestsPerSecond: (measured.completedInWindow * 1000) / options.durationMs,
        errors: measured.errors,
        latency: measured.latency,
        windowStartEpochMs: times.startEpochMs,
        windowEndEpochMs: times.endEpochMs,
      });
    }
  }
  for (const connection of opened) connection.close();
  const report: ScalingLoadReport = { connectionsOpened: total, setupMs, points };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** Waits until every request of the window is answered, so the next window starts from none. */
async function drain(connections: readonly OnceLoadConnection[]): Promise<void> {
  const deadlineMs = performance.now() + DRAIN_TIMEOUT_MS;
  while (connections.some((connection) => connection.inFlight > 0)) {
    if (performance.now() > deadlineMs) {
      throw new Error(`requests still unanswered ${DRAIN_TIMEOUT_MS} ms after the window`);
    }
    await sleep(DRAIN_POLL_MS);
  }
}

function countList(value: string): number[] {
  return value.split(',').map((count) => positiveInteger(count));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`scaling-load: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
