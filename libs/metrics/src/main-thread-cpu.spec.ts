import { existsSync } from 'node:fs';
import { MainThreadCpu } from './main-thread-cpu';

/** Keeps the main thread busy for `ms`. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

describe('MainThreadCpu', () => {
  it("counts this thread's CPU time on Linux, and it grows while the thread computes", () => {
    const clock = MainThreadCpu.open();
    try {
      expect(clock.threadOnly).toBe(process.platform === 'linux');
      const before = clock.nowMs();
      expect(before).toBeGreaterThanOrEqual(0);
      // Longer than the coarsest clock's 10 ms step, so at least one step passes whatever the load.
      let after = before;
      while (after === before) {
        spin(20);
        after = clock.nowMs();
      }
      expect(after).toBeGreaterThan(before);
    } finally {
      clock.close();
    }
  });

  it("reads the scheduler's nanoseconds where Linux offers them, not 10 ms ticks", () => {
    if (!existsSync('/proc/thread-self/schedstat')) {
      expect(process.platform === 'linux' && existsSync('/proc/thread-self/stat')).toBe(
        MainThreadCpu.open().threadOnly,
      );
      return;
    }
    const clock = MainThreadCpu.open();
    try {
      const readings = [clock.nowMs()];
      for (let i = 0; i < 5; i++) {
        spin(1);
        readings.push(clock.nowMs());
      }
      // Ticks give multiples of 10 ms only.
      expect(readings.some((ms) => ms % 10 !== 0)).toBe(true);
    } finally {
      clock.close();
    }
  });

  it('falls back to the whole process once closed', () => {
    const clock = MainThreadCpu.open();
    clock.close();
    expect(clock.threadOnly).toBe(false);
    expect(clock.nowMs()).toBeGreaterThan(0);
  });
});
