/**
 * The journal-room budget: at most `limit` entries admitted but not yet
 * durable, across all sessions, counting those whose admission step still
 * runs (reserved). At the limit the gateway stops reading (TCP backpressure)
 * instead of answering busy.
 *
 * Whoever sees room must take it in the same synchronous step (append, or
 * {@link reserve}): the check and the taking cannot be split by an await.
 */
export class JournalRoom {
  private reserved = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    /** Entries appended and not yet durable (the journal's queue). */
    private readonly pending: () => number,
    /**
     * Whether the next entry journaled brings a REPLY_CHECK entry ahead of it
     * (see `Engine.replyCheckDue`): it takes room too. Default: never.
     */
    private readonly checkDue: () => boolean = () => false,
  ) {}

  /**
   * Room for one more entry, and for the REPLY_CHECK that rides ahead of it
   * when one is due. An idle journal always has room for one request (and
   * its check), so a limit of 1 cannot wait forever on a check that only a
   * request would write.
   */
  has(): boolean {
    const taken = this.pending() + this.reserved;
    if (taken === 0) return true;
    return taken + (this.checkDue() ? 1 : 0) < this.limit;
  }

  /** Resolves when there may be room again; the caller looks again (others may take it first). */
  wait(): Promise<void> {
    if (this.has()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Takes one place until {@link release}: for a caller that releases it
   * exactly once, on every path (no closure, as {@link reserve} makes).
   */
  take(): void {
    this.reserved++;
  }

  /** Gives back one place {@link take} took. */
  release(): void {
    this.reserved--;
    this.wake();
  }

  /** Takes one place until the returned release runs (once; later calls do nothing). */
  reserve(): () => void {
    this.reserved++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.reserved--;
      this.wake();
    };
  }

  /** Entries became durable or a reservation ended: waiters look again. */
  wake(): void {
    if (this.waiters.length > 0 && this.has()) this.wakeAll();
  }

  /** Wakes every waiter whatever the room (the node failed or stops: they find out). */
  wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}
