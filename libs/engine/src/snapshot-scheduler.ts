import { type Journal } from '@once/journal/internal';
import { type Applier } from './applier';
import { type EngineLogger } from './engine-logger';
import { LogEvent } from './log-event';

/**
 * Keyed records changed since the last snapshot that make the next one come
 * early: they are held in memory until a snapshot writes them.
 */
export const KEYED_CHANGES_MAX = 262_144;

/**
 * Share of the main thread a checkpoint's capture may take, averaged over
 * the time between checkpoints: a capture that took 2 ms waits at least
 * 40 ms for the next. Keeps a large whole-object state (or client table)
 * from turning checkpoints into a steady stall.
 */
export const CHECKPOINT_CPU_SHARE_MAX = 0.05;

/** How long checkpoints wait after a snapshot write failed. */
const CHECKPOINT_FAILURE_BACKOFF_MS = 5_000;

/** Why a snapshot is written: the op or change count, a caller, or a checkpoint (keyed state). */
type SnapshotReason = 'scheduled' | 'checkpoint';

/**
 * When the live node writes snapshots: every `everyOps` applied ops, and on
 * demand (a graceful stop). A snapshot is captured synchronously, between two
 * applies, so it is exactly the state at one op; it is written in the
 * background while commits keep flowing, one write at a time.
 *
 * With keyed state on disk, snapshots are also the node's **checkpoints**:
 * one follows each group of applies as soon as the previous write is done
 * and `checkpointIntervalMs` has passed since it (and the capture's share of
 * the main thread stays under {@link CHECKPOINT_CPU_SHARE_MAX}), so the keyed
 * records and the client table reach the disk, with their "applied through"
 * op, within about that interval of the group commit that made them. Its
 * batch is not synced on its own: it joins the journal's next synced group
 * write (LevelDB's one log), and costs no fsync. A boot
 * then replays only the journal written since: its time does not grow with
 * the state. A checkpoint writes only what changed since the previous one
 * (records), plus the small rest of the state; it is not logged line by
 * line, and it does not run the journal's retention (the scheduled
 * snapshots do).
 *
 * Why snapshots at all: they bound the replay at boot. A snapshot that cannot
 * be written is only a warning, since the journal still holds everything.
 */
export class SnapshotScheduler {
  /** The snapshot being written; rejects if the write fails. */
  private write: Promise<void> | undefined;
  /** {@link write}, settling without error: what {@link take} hands out. */
  private quietWrite: Promise<void> | undefined;
  /** Op of the last snapshot taken here; undefined until one is (then the restored one counts). */
  private takenOp: number | undefined;
  /** Journal timestamp of {@link takenOp}. */
  private takenTimestamp = 0n;
  /**
   * Op of the last scheduled (not checkpoint) snapshot taken here: `everyOps`
   * counts from it, so checkpoints do not hold back the scheduled snapshots,
   * which run the journal's retention.
   */
  private scheduledOp: number | undefined;
  /** The next checkpoint, waiting for its interval. */
  private checkpointTimer: NodeJS.Timeout | undefined;
  /** `performance.now()` when the last write ended (none yet: the first checkpoint is due at once). */
  private lastWriteEndedMs = Number.NEGATIVE_INFINITY;
  /** Main-thread time of the last capture, ms: spaces checkpoints (see {@link CHECKPOINT_CPU_SHARE_MAX}). */
  private lastCaptureMs = 0;
  /** No checkpoint any more: the node stops, or stopped applying. */
  private closed = false;
  /** After a failed write, checkpoints wait this long (a full disk is not retried 10 times a second). */
  private failureBackoffMs = 0;

  /**
   * @param everyOps a scheduled snapshot every this many ops (0: none)
   * @param checkpointIntervalMs with keyed state on disk, the least time
   *   between two checkpoints; 0: no checkpoints (the records are written
   *   with the scheduled snapshots only)
   */
  constructor(
    private readonly journal: Journal,
    private readonly applier: Applier,
    private readonly everyOps: number,
    private readonly logger: EngineLogger,
    private readonly checkpointIntervalMs: number = 0,
  ) {}

  /** Op of the newest snapshot the journal holds of this state's history, as far as this node knows. */
  get lastSnapshotOp(): number {
    return this.takenOp ?? this.applier.restoredOp;
  }

  /** Journal timestamp (ns) of {@link lastSnapshotOp}; 0n when there is none. */
  get lastSnapshotTimestamp(): bigint {
    return this.takenOp === undefined ? this.applier.restoredTimestamp : this.takenTimestamp;
  }

  /** Whether the state moved past the newest snapshot. */
  get behind(): boolean {
    return this.applier.commitOp > this.lastSnapshotOp;
  }

  /** The state was replaced (restored or reset): the restored snapshot is the newest again. */
  forgetTaken(): void {
    this.takenOp = undefined;
    this.scheduledOp = undefined;
  }

  /**
   * Called after each group of applies: takes a snapshot when `everyOps` ops
   * passed, or when keyed records waiting for one reach
   * {@link KEYED_CHANGES_MAX} (they are held in memory until then);
   * otherwise, with keyed state, a checkpoint once the previous write ended
   * and its spacing passed (at once, or on a timer).
   */
  afterApply(): void {
    if (this.write) return;
    if (
      (this.everyOps > 0 &&
        this.applier.commitOp - (this.scheduledOp ?? this.applier.restoredOp) >= this.everyOps) ||
      (this.applier.keyed.persistent && this.applier.keyed.stagedCount >= KEYED_CHANGES_MAX)
    ) {
      void this.take();
      return;
    }
    this.checkpointSoon();
  }

  /**
   * No more checkpoints (scheduled or on demand snapshots are still taken
   * when asked): the engine stops, or stopped applying and must not
   * persist the state it reached.
   */
  close(): void {
    this.closed = true;
    if (this.checkpointTimer !== undefined) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
  }

  /** Takes a checkpoint now, or once its interval has passed; nothing when none is due. */
  private checkpointSoon(): void {
    if (!this.checkpointDue() || this.checkpointTimer !== undefined) return;
    const spacingMs = Math.max(
      this.checkpointIntervalMs,
      this.lastCaptureMs / CHECKPOINT_CPU_SHARE_MAX,
      this.failureBackoffMs,
    );
    const waitMs = this.lastWriteEndedMs + spacingMs - performance.now();
    if (waitMs <= 0) {
      void this.takeQuietly('checkpoint');
      return;
    }
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = undefined;
      if (this.checkpointDue()) void this.takeQuietly('checkpoint');
    }, waitMs);
    // An idle node's last checkpoint must not keep its process alive.
    this.checkpointTimer.unref();
  }

  private checkpointDue(): boolean {
    return (
      !this.closed &&
      this.write === undefined &&
      this.checkpointIntervalMs > 0 &&
      this.applier.keyed.persistent &&
      this.behind
    );
  }

  /**
   * Captures now, writes in the background; a second call while writing
   * joins that write. A write that fails is a warning, never a rejection.
   */
  take(): Promise<void> {
    return this.takeQuietly('scheduled');
  }

  private takeQuietly(reason: SnapshotReason): Promise<void> {
    if (!this.write) void this.writeSnapshot(reason);
    return this.quietWrite!;
  }

  /**
   * The stop's snapshot: taken when the state moved past the newest one.
   * Otherwise (a checkpoint already covers the last commit) a node that
   * served says so, so every stop logs where its state is; both outcomes
   * are logged here, by the one class that knows which happened.
   */
  async takeAtStop(served: boolean): Promise<void> {
    if (this.behind) {
      await this.take();
      return;
    }
    if (!served) return;
    const op = this.lastSnapshotOp;
    this.logger.log(
      new LogEvent('snapshot-current', `snapshot at op ${op} is current: nothing to write`, {
        snapshotOp: op,
      }),
    );
  }

  /**
   * {@link take}, but the promise rejects with the write's error (the warning
   * is logged all the same): for an operator's tool that writes one snapshot
   * and must report that it could not. It captures the keyed records' changes
   * and writes them with the snapshot, as every snapshot must: a snapshot
   * with keyed state whose records are not on disk at its op can never be
   * restored.
   */
  takeOrFail(): Promise<void> {
    return this.writeSnapshot('scheduled');
  }

  private writeSnapshot(reason: SnapshotReason): Promise<void> {
    if (this.write) return this.write;
    if (this.checkpointTimer !== undefined) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    const captureStarted = performance.now();
    const op = this.applier.commitOp;
    const payload = this.applier.captureSnapshot();
    const keyed = this.applier.keyed;
    const checkpoint = keyed.persistent ? keyed.seal() : undefined;
    this.takenOp = op;
    this.takenTimestamp = this.applier.commitTimestamp;
    if (reason === 'scheduled') this.scheduledOp = op;
    const started = performance.now();
    this.lastCaptureMs = started - captureStarted;
    const write = this.journal
      .saveSnapshot(op, payload, checkpoint, {
        compact: reason !== 'checkpoint',
        // A checkpoint rides on the journal's next synced write (see SaveSnapshotOptions.sync).
        sync: reason !== 'checkpoint',
      })
      .then(
        () => {
          if (checkpoint) keyed.sealedWritten();
          this.failureBackoffMs = 0;
          if (reason === 'checkpoint') return;
          const elapsedMs = Math.round(performance.now() - started);
          this.logger.log(
            new LogEvent(
              'snapshot-written',
              `snapshot at op ${op} written (${payload.length} bytes, ${elapsedMs} ms)`,
              { snapshotOp: op, bytes: payload.length, elapsedMs },
            ),
          );
        },
        (error: unknown) => {
          if (checkpoint) keyed.sealedFailed();
          this.failureBackoffMs = CHECKPOINT_FAILURE_BACKOFF_MS;
          this.logger.warn(`snapshot at op ${op} could not be written: ${String(error)}`);
          throw error;
        },
      )
      .finally(() => {
        this.write = undefined;
        this.quietWrite = undefined;
        this.lastWriteEndedMs = performance.now();
        // What was applied while this one was written waits for the next.
        this.checkpointSoon();
      });
    this.write = write;
    this.quietWrite = write.catch(() => undefined);
    return write;
  }

  /** Resolves once no snapshot write is running. */
  async settled(): Promise<void> {
    if (this.quietWrite) await this.quietWrite;
  }
}
