import { readProcText } from './process-io';
import { sleep } from './sleep';

/** Clock ticks per second of `/proc/<pid>/stat`'s CPU times: USER_HZ, 100 on Linux. */
const USER_HZ = 100;

/**
 * CPU time process `pid` used so far (every thread: user and system), ms;
 * undefined where the kernel does not say (no /proc, the process gone).
 */
export async function readProcessCpuMs(pid: number | undefined): Promise<number | undefined> {
  const text = await readProcText(pid, 'stat');
  if (text === undefined) return undefined;
  // The command name (field 2) may hold spaces: the fields after it follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) return undefined;
  return ((userTicks + systemTicks) * 1000) / USER_HZ;
}

/** How {@link waitForIdle} decides that processes are idle. */
export interface IdleOptions {
  /** The window CPU is counted over, ms. Default 1000. */
  readonly windowMs?: number;
  /** Their CPU over one window, summed, at most this share of one core. Default 0.05. */
  readonly cpuShareMax?: number;
  /** Give up after this long, ms. Default 60,000. */
  readonly timeoutMs?: number;
}

/** What {@link waitForIdle} saw. */
export interface IdleWait {
  /** Whether a window came in which the processes were idle (false: the wait timed out). */
  readonly idle: boolean;
  readonly waitedMs: number;
}

/**
 * Waits until the processes `pids` are idle together: one window in which
 * their CPU (every thread: LevelDB's compactions too) stayed under the share.
 * What a measurement of one of several services waits for, so that the
 * others' background work (a compaction after their own load) is not in it.
 * A process without a /proc entry counts as idle.
 */
export async function waitForIdle(
  pids: ReadonlyArray<number | undefined>,
  options: IdleOptions = {},
): Promise<IdleWait> {
  const windowMs = options.windowMs ?? 1000;
  const cpuShareMax = options.cpuShareMax ?? 0.05;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = performance.now();
  let before = await totalCpuMs(pids);
  for (;;) {
    await sleep(windowMs);
    const after = await totalCpuMs(pids);
    const waitedMs = performance.now() - started;
    if (after - before <= cpuShareMax * windowMs) return { idle: true, waitedMs };
    if (waitedMs >= timeoutMs) return { idle: false, waitedMs };
    before = after;
  }
}

async function totalCpuMs(pids: ReadonlyArray<number | undefined>): Promise<number> {
  let total = 0;
  for (const pid of pids) total += (await readProcessCpuMs(pid)) ?? 0;
  return total;
}
