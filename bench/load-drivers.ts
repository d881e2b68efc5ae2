import { type LoadConnection } from './load-connection';
import { type LoadStats } from './load-stats';
import { sleep } from './sleep';

/** How long a driver runs: a warm-up, then the measurement window. */
export interface LoadWindow {
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** The measurement window in `performance.now()` and Unix-epoch milliseconds. */
export interface WindowTimes {
  readonly startMs: number;
  readonly endMs: number;
  readonly startEpochMs: number;
  readonly endEpochMs: number;
}

/** Open-loop timer period: the rate is kept exact on average, sends are grouped per tick. */
const OPEN_LOOP_TICK_MS = 1;

function windowTimes(window: LoadWindow): WindowTimes {
  const startMs = performance.now() + window.warmupMs;
  const endMs = startMs + window.durationMs;
  return {
    startMs,
    endMs,
    startEpochMs: performance.timeOrigin + startMs,
    endEpochMs: performance.timeOrigin + endMs,
  };
}

/**
 * Closed loop: every connection keeps `depth` requests in flight, sending one
 * more for each answer, until the window ends. What is measured is the
 * server's capacity at that concurrency.
 */
export async function runClosedLoop(
  connections: readonly LoadConnection[],
  depth: number,
  window: LoadWindow,
  stats: LoadStats,
): Promise<WindowTimes> {
  const times = windowTimes(window);
  stats.setWindow(times.startMs, times.endMs);
  let running = true;
  for (const connection of connections) {
    connection.onAnswered = (count) => {
      if (running) connection.send(count);
    };
    connection.send(depth);
  }
  await sleep(times.endMs - performance.now());
  running = false;
  return times;
}

/**
 * Closed loop for a fixed amount of work: `totalRequests` requests spread
 * evenly over the connections, `depth` in flight each; resolves once every
 * one is answered. Used to fill a journal, so it has no window.
 */
export async function runFixedCount(
  connections: readonly LoadConnection[],
  depth: number,
  totalRequests: number,
): Promise<void> {
  const perConnection = Math.ceil(totalRequests / connections.length);
  await Promise.all(
    connections.map(
      (connection) =>
        new Promise<void>((done) => {
          let sent = 0;
          const sendUpTo = (count: number) => {
            const batch = Math.min(count, perConnection - sent);
            if (batch > 0) {
              sent += batch;
              connection.send(batch);
            }
          };
          connection.onAnswered = (count) => {
            sendUpTo(count);
            if (sent === perConnection && connection.inFlight === 0) done();
          };
          sendUpTo(depth);
        }),
    ),
  );
}

/**
 * Open loop: requests are offered at `ratePerSecond` in total, round-robin
 * over the connections, whatever the answers do; after the window, answers
 * are awaited up to `drainMs` and the rest count as errors. What is measured
 * is the latency a client sees at that load, queueing included.
 */
export async function runOpenLoop(
  connections: readonly LoadConnection[],
  ratePerSecond: number,
  window: LoadWindow,
  drainMs: number,
  stats: LoadStats,
): Promise<WindowTimes> {
  const times = windowTimes(window);
  stats.setWindow(times.startMs, times.endMs);
  const firstMs = performance.now();
  const counts = new Array<number>(connections.length).fill(0);
  let offered = 0;
  let next = 0;
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (now >= times.endMs) {
        clearInterval(timer);
        done();
        return;
      }
      const due = Math.floor(((now - firstMs) * ratePerSecond) / 1000) - offered;
      for (let i = 0; i < due; i++) {
        counts[next]++;
        next = next + 1 === connections.length ? 0 : next + 1;
      }
      offered += due;
      for (let i = 0; i < connections.length; i++) {
        if (counts[i] > 0) {
          connections[i].send(counts[i]);
          counts[i] = 0;
        }
      }
    }, OPEN_LOOP_TICK_MS);
  });
  const drainEndMs = performance.now() + drainMs;
  while (performance.now() < drainEndMs && connections.some((c) => c.inFlight > 0)) {
    await sleep(10);
  }
  stats.unanswered(connections.reduce((sum, connection) => sum + connection.inFlight, 0));
  return times;
}
