import { MainThreadCpu } from '../main-thread-cpu';

/** CPU time a spin uses at least: three of Linux's 10 ms accounting ticks. */
const SPIN_CPU_MS_MIN = 30;

/**
 * Blocks the event loop for at least `wallMs` and at least
 * {@link SPIN_CPU_MS_MIN} of this thread's CPU time. On a busy host a spin
 * timed by the wall clock alone may run for only a sliver of it, too little
 * for the thread's CPU clock (10 ms steps) to move.
 */
export function spinMainThread(wallMs: number): void {
  const cpu = MainThreadCpu.open();
  try {
    const cpuFromMs = cpu.nowMs();
    const until = performance.now() + wallMs;
    while (performance.now() < until || cpu.nowMs() - cpuFromMs < SPIN_CPU_MS_MIN) {
      // spinning on purpose: no event loop turn
    }
  } finally {
    cpu.close();
  }
}
