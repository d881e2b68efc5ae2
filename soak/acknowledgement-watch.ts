/**
 * When the load clients' transfers are acknowledged, for the chaos to time
 * a failover by what a client sees: from the kill of the leader to the first
 * transfer acknowledged after another leader took over. Every load client
 * reports each acknowledgement; the cost is a comparison while nobody waits.
 */
export class AcknowledgementWatch {
  private readonly waiters: Array<{
    readonly afterMs: number;
    readonly resolve: (atMs: number) => void;
  }> = [];

  /** A load client's transfer was just acknowledged. */
  acknowledged(): void {
    if (this.waiters.length === 0) return;
    const nowMs = performance.now();
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i];
      if (waiter.afterMs > nowMs) continue;
      this.waiters.splice(i, 1);
      waiter.resolve(nowMs);
    }
  }

  /**
   * Resolves with the `performance.now()` of the first acknowledgement at or
   * after `afterMs`, or undefined when none came within `boundMs`.
   */
  next(afterMs: number, boundMs: number): Promise<number | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(undefined);
      }, boundMs);
      const waiter = {
        afterMs,
        resolve: (atMs: number) => {
          clearTimeout(timer);
          resolve(atMs);
        },
      };
      this.waiters.push(waiter);
    });
  }
}
