import { closeSync, openSync, readSync } from 'node:fs';

/** Linux reports a thread's CPU time in `stat` in clock ticks of 1/100 s (USER_HZ). */
const MS_PER_TICK = 10;
/** `/proc/thread-self/stat` is about 300 bytes; `schedstat`, three numbers. */
const READ_BYTES = 1024;
/** After the `(comm)` field of `stat`, utime and stime are the 12th and 13th fields. */
const UTIME_FIELD = 11;
const STIME_FIELD = 12;
const NS_PER_MS = 1e6;

/** Where a thread's CPU time is read on Linux, most precise first. */
const THREAD_CLOCKS: readonly { path: string; parse: (text: string) => number }[] = [
  // Time on a CPU, in ns (the kernel's scheduler accounting; absent without CONFIG_SCHED_INFO).
  { path: '/proc/thread-self/schedstat', parse: (text) => Number(text.split(' ')[0]) / NS_PER_MS },
  {
    path: '/proc/thread-self/stat',
    parse: (text) => {
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[UTIME_FIELD]) + Number(fields[STIME_FIELD])) * MS_PER_TICK;
    },
  },
];

/**
 * The CPU time of the thread that opened it (the main thread, for the event
 * loop's sampler), in ms: on Linux from `/proc/thread-self/schedstat` (the
 * scheduler's nanoseconds on a CPU) or, without it, `/proc/thread-self/stat`
 * (user + system ticks, 10 ms steps), of that thread alone (the file stays
 * open and is re-read with one pread, a few µs); elsewhere from
 * `process.cpuUsage()`, the whole process's (every thread: an upper bound
 * of the main thread's).
 */
export class MainThreadCpu {
  private readonly buffer = Buffer.alloc(READ_BYTES);

  private constructor(
    private fd: number | undefined,
    private readonly parse: (text: string) => number,
  ) {}

  /** Opens the calling thread's clock; falls back to the process's where /proc is not there. */
  static open(): MainThreadCpu {
    for (const { path, parse } of THREAD_CLOCKS) {
      let fd: number | undefined;
      try {
        fd = openSync(path, 'r');
      } catch {
        continue;
      }
      const clock = new MainThreadCpu(fd, parse);
      if (clock.threadMs() !== undefined) return clock;
      clock.close();
    }
    return new MainThreadCpu(undefined, () => Number.NaN);
  }

  /** Whether it counts this thread only (else the whole process). */
  get threadOnly(): boolean {
    return this.fd !== undefined;
  }

  /** CPU time used so far, ms. */
  nowMs(): number {
    if (this.fd !== undefined) {
      const ms = this.threadMs();
      if (ms !== undefined) return ms;
      this.close();
    }
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }

  /** Closes the file; later reads use the process's time. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private threadMs(): number | undefined {
    try {
      const length = readSync(this.fd!, this.buffer, 0, READ_BYTES, 0);
      const ms = this.parse(this.buffer.toString('latin1', 0, length));
      return Number.isFinite(ms) ? ms : undefined;
    } catch {
      return undefined;
    }
  }
}
