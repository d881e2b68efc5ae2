import { setTimeout as delay } from 'node:timers/promises';
import { type RangeMs } from './cli-values';
import { type SeededRandom } from './seeded-random';

/**
 * The random waits of the chaos loops, all ended at once by `stop()`: a
 * loop waits between two of its faults, and ends when the wait says the
 * chaos is stopping. What a loop does after a wait (a restart, a resume) is
 * always finished, so the chaos never stops half way through a fault.
 */
export class ChaosPauses {
  private readonly abort = new AbortController();

  /** Ends every wait under way and every later one at once. */
  stop(): void {
    this.abort.abort();
  }

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  /** Waits a random delay of `range`; false when the chaos is stopping. */
  async wait(random: SeededRandom, range: RangeMs): Promise<boolean> {
    try {
      await delay(draw(random, range), undefined, { signal: this.abort.signal });
      return true;
    } catch (error) {
      if (this.abort.signal.aborted) return false;
      throw error;
    }
  }
}

/** A delay of `range`, uniformly. */
export function draw(random: SeededRandom, range: RangeMs): number {
  return random.integer(range.minMs, range.maxMs);
}
