/**
 * A wait between two rounds of a loop that can be cut short: `wake()` ends
 * the current wait at once (a released key to contend for, a stop), so a
 * loop never sleeps through news nor holds its process open after a stop.
 */
export class Pause {
  private waking?: () => void;

  /** Resolves after `ms`, or at the next `wake()`, whichever comes first. */
  for(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.waking === done) this.waking = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waking = done;
    });
  }

  /** Ends the current wait; a no-op when nothing waits. */
  wake(): void {
    this.waking?.();
  }
}
