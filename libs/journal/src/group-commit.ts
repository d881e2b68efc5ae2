import { JournalFailedError } from './journal-failed.error';
import { type JournalEntry } from './journal-entry';

/**
 * Writes one group's operations (one per entry, in op order) in one synced
 * batch. Resolving means every one is on disk; rejecting means nothing may be
 * assumed about any of them.
 */
export type GroupWriter<TOperation> = (operations: TOperation[]) => Promise<void>;

/** Called with the entries of one synced group, in op order. */
export type DurableListener = (entries: readonly JournalEntry[]) => void;

/** Called once, when the first write fails and the journal stops. */
export type FailureListener = (error: JournalFailedError) => void;

/** Entries that go to disk together, and the promise their appends wait on. */
interface Group<TOperation> {
  readonly entries: JournalEntry[];
  readonly operations: TOperation[];
  readonly durable: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

function newGroup<TOperation>(): Group<TOperation> {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const durable = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  // Entries queued with `enqueue` wait on no promise: their failure is reported
  // to the failure listeners, and must not also surface as an unhandled rejection.
  durable.catch(() => undefined);
  return { entries: [], operations: [], durable, resolve, reject };
}

/**
 * Group commit: at most one synced batch write is in flight; every entry
 * submitted meanwhile joins the one group that is written next, all at once.
 *
 * Why: a synced write costs an fsync whatever its size, so under load the
 * fsync rate (not the entry rate) bounds throughput; batching everything that
 * queued during one fsync into the next keeps the disk busy without adding
 * latency when idle (an entry on an idle journal is written at once).
 *
 * Invariants:
 * - submitted ops are contiguous (asserted on submit), so groups are too;
 * - groups are written one at a time, in submission order, so they become
 *   durable in op order and `durableOp` only grows;
 * - nothing is reported durable unless its write resolved (fail-stop).
 */
export class GroupCommit<TOperation> {
  /** The group new entries join; written when the current write finishes. */
  #collecting: Group<TOperation> | undefined;
  /** The group whose batch write is in flight. */
  #writing: Group<TOperation> | undefined;
  #durableOp: number;
  #lastSubmittedOp: number;
  #pendingCount = 0;
  #batchesWritten = 0;
  #entriesWritten = 0;
  #failure: JournalFailedError | undefined;
  // Copy-on-write, so (un)subscribing from inside a listener is safe.
  #durableListeners: readonly DurableListener[] = [];
  #failureListeners: readonly FailureListener[] = [];
  #idleWaiters: Array<() => void> = [];
  readonly #write: GroupWriter<TOperation>;

  /** @param durableOp the last op already on disk; the next submit must be durableOp + 1 */
  constructor(write: GroupWriter<TOperation>, durableOp: number) {
    this.#write = write;
    this.#durableOp = durableOp;
    this.#lastSubmittedOp = durableOp;
  }

  /** Highest op whose group write resolved. */
  get durableOp(): number {
    return this.#durableOp;
  }

  /** Entries submitted whose write has not resolved (0 once failed). */
  get pendingCount(): number {
    return this.#pendingCount;
  }

  /** Synced batches and the entries in them, since this journal was opened. */
  get writeStats(): { readonly batches: number; readonly entries: number } {
    return { batches: this.#batchesWritten, entries: this.#entriesWritten };
  }

  /** Set by the first failed write; from then on every submit rejects with it. */
  get failure(): JournalFailedError | undefined {
    return this.#failure;
  }

  /**
   * Queues `entry` (whose op must follow the last submitted one) with the
   * operation that stores it, and resolves with it once its group is synced,
   * after the durable listeners ran.
   */
  submit(entry: JournalEntry, operation: TOperation): Promise<JournalEntry> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return this.enqueue(entry, operation).durable.then(() => entry);
  }

  /**
   * Queues `entry` like `submit`, without a promise of its own: the caller
   * learns of durability from the durable listeners and of failure from the
   * failure listeners (the hot path of a node that applies through them).
   * Throws the failure if the journal already failed.
   */
  enqueue(
    entry: JournalEntry,
    operation: TOperation,
    /** The caller enqueues another entry in this turn, which starts the write for both. */
    withNext = false,
  ): { readonly durable: Promise<void> } {
    if (this.#failure !== undefined) throw this.#failure;
    if (entry.op !== this.#lastSubmittedOp + 1) {
      throw new Error(
        `invariant broken: op ${entry.op} submitted after op ${this.#lastSubmittedOp}`,
      );
    }
    this.#lastSubmittedOp = entry.op;
    this.#pendingCount++;
    let group = this.#collecting;
    if (group === undefined) {
      group = newGroup<TOperation>();
      this.#collecting = group;
    }
    group.entries.push(entry);
    group.operations.push(operation);
    if (this.#writing === undefined && !withNext) this.#startWrite();
    return group;
  }

  /**
   * Starts the write of entries held for a next one (`withNext`) that did
   * not come; nothing when a write is in flight (they go with the next group).
   */
  writeHeld(): void {
    if (this.#writing === undefined && this.#collecting !== undefined) this.#startWrite();
  }

  /** Subscribes to synced groups; returns the unsubscribe function. */
  onDurable(listener: DurableListener): () => void {
    this.#durableListeners = [...this.#durableListeners, listener];
    return () => {
      this.#durableListeners = this.#durableListeners.filter((l) => l !== listener);
    };
  }

  /** Subscribes to the (single) failure; returns the unsubscribe function. */
  onFailure(listener: FailureListener): () => void {
    this.#failureListeners = [...this.#failureListeners, listener];
    return () => {
      this.#failureListeners = this.#failureListeners.filter((l) => l !== listener);
    };
  }

  /** Resolves when no write is in flight and nothing is queued (or after a failure). */
  whenIdle(): Promise<void> {
    if (this.#writing === undefined && this.#collecting === undefined) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Moves the journal's end back to `lastOp` after an operator truncation.
   * Only while idle and healthy: in-flight entries would otherwise keep ops
   * that no longer exist.
   */
  rewind(lastOp: number): void {
    if (this.#pendingCount !== 0 || this.#failure !== undefined) {
      throw new Error('invariant broken: rewind of a busy or failed group commit');
    }
    this.#durableOp = lastOp;
    this.#lastSubmittedOp = lastOp;
  }

  #startWrite(): void {
    const group = this.#collecting!;
    this.#collecting = undefined;
    this.#writing = group;
    void this.#write(group.operations).then(
      () => this.#written(group),
      (cause: unknown) => this.#failed(group, cause),
    );
  }

  #written(group: Group<TOperation>): void {
    const entries = group.entries;
    this.#durableOp = entries[entries.length - 1].op;
    this.#pendingCount -= entries.length;
    this.#batchesWritten++;
    this.#entriesWritten += entries.length;
    this.#writing = undefined;
    // Next group first: its fsync overlaps with the listeners below.
    if (this.#collecting !== undefined) this.#startWrite();
    for (const listener of this.#durableListeners) {
      try {
        listener(entries);
      } catch (error) {
        rethrowAsync(error);
      }
    }
    group.resolve();
    if (this.#writing === undefined) this.#wakeIdleWaiters();
  }

  #failed(group: Group<TOperation>, cause: unknown): void {
    const error = new JournalFailedError(cause);
    this.#failure = error;
    this.#writing = undefined;
    const queued = this.#collecting;
    this.#collecting = undefined;
    this.#pendingCount = 0;
    group.reject(error);
    queued?.reject(error);
    for (const listener of this.#failureListeners) {
      try {
        listener(error);
      } catch (listenerError) {
        rethrowAsync(listenerError);
      }
    }
    this.#wakeIdleWaiters();
  }

  #wakeIdleWaiters(): void {
    const waiters = this.#idleWaiters;
    if (waiters.length === 0) return;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * A throwing listener is a bug in its owner. It must not break the commit
 * pipeline (later groups would never complete), nor be swallowed: it surfaces
 * as an uncaught exception, outside the pipeline.
 */
function rethrowAsync(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
