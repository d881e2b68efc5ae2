import { closeSync, openSync, readSync } from 'node:fs';

/** Linux reports a thread's CPU time in clock ticks of 1/100 s (USER_HZ). */
const MS_PER_TICK = 10;
/** `/proc/thread-self/stat` is about 300 bytes. */
const STAT_BYTES = 1024;
/** After the `(comm)` field, utime and stime are the 12th and 13th fields. */
const UTIME_FIELD = 11;
const STIME_FIELD = 12;

/**
 * The CPU time of the thread that opened it (the main thread, for the event
 * loop's sampler), in ms: on Linux from `/proc/thread-self/stat` (user +
 * system ticks of that thread alone, 10 ms steps; the file stays open and is
 * re-read with one pread, a few µs), elsewhere from `process.cpuUsage()`, the
 * whole process's (every thread: an upper bound of the main thread's).
 */
export class MainThreadCpu {
  private readonly buffer = Buffer.alloc(STAT_BYTES);

  private constructor(private fd: number | undefined) {}

  /** Opens the calling thread's clock; falls back to the process's where /proc is not there. */
  static open(): MainThreadCpu {
    let fd: number | undefined;
    try {
      fd = openSync('/proc/thread-self/stat', 'r');
    } catch {
      fd = undefined;
    }
    const clock = new MainThreadCpu(fd);
    if (fd !== undefined && clock.threadMs() === undefined) clock.close();
    return clock;
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
      const length = readSync(this.fd!, this.buffer, 0, STAT_BYTES, 0);
      const text = this.buffer.toString('latin1', 0, length);
      // The command name may hold spaces and parentheses: fields start after the last ')'.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[UTIME_FIELD]) + Number(fields[STIME_FIELD]);
      return Number.isFinite(ticks) ? ticks * MS_PER_TICK : undefined;
    } catch {
      return undefined;
    }
  }
}
