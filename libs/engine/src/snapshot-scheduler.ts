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
 * When the live node writes snapshots: every `everyOps` applied ops, and on
 * demand (a graceful stop). A snapshot is captured synchronously, between two
 * applies, so it is exactly the state at one op; it is written in the
 * background while commits keep flowing, one write at a time.
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

  constructor(
    private readonly journal: Journal,
    private readonly applier: Applier,
    private readonly everyOps: number,
    private readonly logger: EngineLogger,
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
  }

  /**
   * Called after each group of applies: takes a snapshot when `everyOps` ops
   * passed, or when keyed records waiting for one reach
   * {@link KEYED_CHANGES_MAX} (they are held in memory until then).
   */
  afterApply(): void {
    if (this.write) return;
    if (
      (this.everyOps > 0 && this.applier.commitOp - this.lastSnapshotOp >= this.everyOps) ||
      (this.applier.keyed.persistent && this.applier.keyed.stagedCount >= KEYED_CHANGES_MAX)
    ) {
      void this.take();
    }
  }

  /**
   * Captures now, writes in the background; a second call while writing
   * joins that write. A write that fails is a warning, never a rejection.
   */
  take(): Promise<void> {
    if (!this.write) void this.takeOrFail();
    return this.quietWrite!;
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
    if (this.write) return this.write;
    const op = this.applier.commitOp;
    const payload = this.applier.captureSnapshot();
    const keyed = this.applier.keyed;
    const checkpoint = keyed.persistent ? keyed.seal() : undefined;
    this.takenOp = op;
    this.takenTimestamp = this.applier.commitTimestamp;
    const started = performance.now();
    const write = this.journal
      .saveSnapshot(op, payload, checkpoint)
      .then(
        () => {
          if (checkpoint) keyed.sealedWritten();
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
          this.logger.warn(`snapshot at op ${op} could not be written: ${String(error)}`);
          throw error;
        },
      )
      .finally(() => {
        this.write = undefined;
        this.quietWrite = undefined;
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
