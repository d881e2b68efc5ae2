import { type IdentityRecord } from './identity-record';
import { removeIdentityFile, writeIdentityFile } from './identity-file';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Coalesced, ordered writes of the identity file.
 *
 * `flush()` promises that a write which *started after the call* has completed,
 * so everything the caller changed before calling is on disk when it resolves.
 * Calls made while a write runs, or in the same event-loop turn, share the next
 * write: one write per turn at most, however many commands were numbered in it.
 *
 * Invariant: at most one write runs at a time, and every write takes the state
 * as it is when it starts, so the file only ever moves forward.
 */
export class IdentityPersister {
  private running: Promise<void> | undefined;
  private waiters: Waiter[] = [];
  private startScheduled = false;
  private removing = false;

  constructor(
    readonly path: string,
    private readonly snapshot: () => IdentityRecord,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {}

  /** Resolves once a write that started after this call is durable. */
  flush(): Promise<void> {
    if (this.removing) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.scheduleStart();
    });
  }

  /** A write whenever convenient (settled requests leaving the file); errors go to the handler. */
  schedule(): void {
    this.flush().catch((error: unknown) => this.onBackgroundError(error));
  }

  /**
   * Deletes the file (the session ended: nothing is left to resume). Writes
   * already running finish first; from the call on, nothing is written again.
   */
  async remove(): Promise<void> {
    this.removing = true;
    while (this.running) await this.running;
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
    await removeIdentityFile(this.path);
  }

  private scheduleStart(): void {
    if (this.startScheduled || this.running) return;
    this.startScheduled = true;
    // Next tick, not now: every flush() of this turn joins the same write.
    process.nextTick(() => {
      this.startScheduled = false;
      this.startWrite();
    });
  }

  private startWrite(): void {
    if (this.running || this.waiters.length === 0) return;
    const batch = this.waiters;
    this.waiters = [];
    if (this.removing) {
      for (const waiter of batch) waiter.resolve();
      return;
    }
    let record: IdentityRecord;
    try {
      record = this.snapshot();
    } catch (error) {
      this.finish(batch, error);
      return;
    }
    this.running = writeIdentityFile(this.path, record).then(
      () => this.finish(batch, undefined),
      (error: unknown) => this.finish(batch, error ?? new Error('write failed')),
    );
  }

  private finish(batch: Waiter[], error: unknown): void {
    this.running = undefined;
    for (const waiter of batch) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
    if (this.waiters.length > 0) this.scheduleStart();
  }
}
