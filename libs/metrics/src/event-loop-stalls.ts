import { type RecordableHistogram, createHistogram } from 'node:perf_hooks';
import { MainThreadCpu } from './main-thread-cpu';

/** Options of {@link EventLoopStalls}. */
export interface EventLoopStallsOptions {
  /**
   * How often the loop is sampled, in ms: a stall shorter than this may go
   * unseen, a longer one is measured to within a millisecond. Default 10
   * (as `perf_hooks.monitorEventLoopDelay`'s): 100 timer callbacks a second.
   */
  readonly resolutionMs?: number;
}

/** The delays sampled between two reads. */
export interface EventLoopDelayWindow {
  /** The longest delay, in ms (0 when nothing was sampled). */
  readonly maxMs: number;
  /** The 99th percentile of the samples, in ms. */
  readonly p99Ms: number;
  /**
   * The longest delay counted in the main thread's CPU time, in ms: per
   * sample, the smaller of the delay and the CPU time the main thread used
   * meanwhile (Linux: the scheduler's count, or 10 ms steps without it) or,
   * elsewhere, the whole process (every thread: an upper bound). What the
   * process's own work blocked; a delay far above it was spent waiting for a
   * CPU (a busy host), not computing.
   */
  readonly maxOnCpuMs: number;
  /** Samples taken: one per resolution while the loop turns, one per stall. */
  readonly samples: number;
}

const DEFAULT_RESOLUTION_MS = 10;
/** The histogram counts whole microseconds, from 1. */
const US_PER_MS = 1000;

/**
 * How long the main thread went without turning the event loop: while it
 * runs one piece of code (a snapshot's capture, a big apply, a long JSON
 * encode), no request is read, decoded or answered, so every request waiting
 * is late by as much. A timer due every `resolutionMs` records how late it
 * fires into a histogram (node's HDR histogram, `perf_hooks.createHistogram`).
 *
 * Why not `perf_hooks.monitorEventLoopDelay`, which does the same natively:
 * its `reset()` also forgets when it last fired, so the first interval after
 * each reset is not measured at all, and a stall that starts right after a
 * scrape would be lost. Here a read only swaps the histogram; the timer's own
 * clock goes on. The cost is one JS callback per resolution (100 a second), and the read of
 * the CPU clock in it.
 *
 * On a busy host a delay is also the time the process waited for a CPU;
 * each sample therefore also reads the main thread's CPU time
 * ({@link MainThreadCpu}: one pread of /proc on Linux, a few µs), which tells
 * how much of the delay was the process's own work.
 *
 * The timer is unref'd: it never keeps a process alive.
 */
export class EventLoopStalls {
  private readonly resolutionMs: number;
  private timer: NodeJS.Timeout | undefined;
  private lastTickMs = 0;
  private window: RecordableHistogram = createHistogram();
  private windowMaxMs = 0;
  private windowMaxOnCpuMs = 0;
  private peak = 0;
  private lastCpuMs = 0;
  private cpu: MainThreadCpu | undefined;

  constructor(options: EventLoopStallsOptions = {}) {
    const resolutionMs = options.resolutionMs ?? DEFAULT_RESOLUTION_MS;
    if (!Number.isFinite(resolutionMs) || resolutionMs < 1) {
      throw new RangeError(`resolutionMs must be a number of at least 1: ${resolutionMs}`);
    }
    this.resolutionMs = resolutionMs;
  }

  /** Starts sampling (again: from an empty window and peak). */
  start(): void {
    this.stop();
    this.window = createHistogram();
    this.windowMaxMs = 0;
    this.windowMaxOnCpuMs = 0;
    this.peak = 0;
    this.cpu = MainThreadCpu.open();
    this.lastTickMs = performance.now();
    this.lastCpuMs = this.cpu.nowMs();
    this.timer = setInterval(() => this.sample(), this.resolutionMs);
    this.timer.unref();
  }

  /** Stops sampling; what was sampled stays readable. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.cpu?.close();
    this.cpu = undefined;
  }

  /** Whether the timer runs. */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** The longest delay since {@link start}, in ms (reads do not reset it). */
  get peakMs(): number {
    return this.peak;
  }

  /** The delays since the previous call (or {@link start}); the next window starts empty. */
  takeWindow(): EventLoopDelayWindow {
    const window = this.window;
    const taken: EventLoopDelayWindow = {
      maxMs: this.windowMaxMs,
      // The histogram answers a bucket's upper end (3 significant digits): never above the max.
      p99Ms: window.count > 0 ? Math.min(window.percentile(99) / US_PER_MS, this.windowMaxMs) : 0,
      samples: window.count,
      maxOnCpuMs: this.windowMaxOnCpuMs,
    };
    this.window = createHistogram();
    this.windowMaxMs = 0;
    this.windowMaxOnCpuMs = 0;
    return taken;
  }

  /**
   * One tick: how much later than due it fired. Node reschedules an
   * interval from when its callback ran, so lateness does not accumulate.
   */
  private sample(): void {
    const now = performance.now();
    const cpuMs = this.cpu!.nowMs();
    const delayMs = Math.max(0, now - this.lastTickMs - this.resolutionMs);
    const onCpuMs = Math.min(delayMs, cpuMs - this.lastCpuMs);
    this.lastTickMs = now;
    this.lastCpuMs = cpuMs;
    if (onCpuMs > this.windowMaxOnCpuMs) this.windowMaxOnCpuMs = onCpuMs;
    this.window.record(Math.max(1, Math.round(delayMs * US_PER_MS)));
    if (delayMs > this.windowMaxMs) this.windowMaxMs = delayMs;
    if (delayMs > this.peak) this.peak = delayMs;
  }
}
