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
      // Longer than the clock's 10 ms step, so at least one step passes whatever the load.
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

  it('falls back to the whole process once closed', () => {
    const clock = MainThreadCpu.open();
    clock.close();
    expect(clock.threadOnly).toBe(false);
    expect(clock.nowMs()).toBeGreaterThan(0);
  });
});
