import { type Journal, type SnapshotRecord } from '@once/journal/internal';
import {
  type Observable,
  asyncScheduler,
  concat,
  defer,
  finalize,
  from,
  map,
  of,
  switchMap,
  throttleTime,
} from 'rxjs';
import { type ApplyOutcome } from './apply-outcome';
import { Applier } from './applier';
import { CodeChangeError } from './code-change.error';
import { SnapshotsUnusableError } from './snapshots-unusable.error';
import { type EngineLogger, SILENT_LOGGER } from './engine-logger';
import { LogEvent } from './log-event';

/** What the replay saga reports while it runs, and once when it is done. */
export interface ReplayProgress {
  readonly done: boolean;
  /** Op of the snapshot the replay started from (0: none, replay from op 1). */
  readonly snapshotOp: number;
  /** Journal entries applied so far (after the snapshot). */
  readonly appliedEntries: number;
  /** Journal entries to apply in all (after the snapshot). */
  readonly totalEntries: number;
  readonly entriesPerSecond: number;
  readonly elapsedMs: number;
  /** Highest op applied so far. */
  readonly commitOp: number;
}

export interface ReplaySagaOptions {
  /** Entries read per LevelDB iterator step. Default 1024. */
  readonly batchSize?: number;
  /** At most one progress report per this many ms (the final one always comes). Default 1000. */
  readonly progressIntervalMs?: number;
  readonly logger?: EngineLogger;
  /**
   * Replay from op 1 even when snapshots exist (verification, repair). On a
   * compacted journal (first op above 1) the oldest snapshot that covers
   * the compacted ops is restored instead, since op 1 is gone.
   */
  readonly ignoreSnapshots?: boolean;
  /** Sees every replayed outcome (for verifying replay against a live run). */
  readonly onOutcome?: (outcome: ApplyOutcome) => void;
}

/**
 * What a replay applies into: an {@link Applier}, or whatever drives one (the
 * live `Engine`), whose applier is then used. Replay never goes through the
 * live path: it calls the applier's `apply`, the function live commits reach.
 */
export type ReplayTarget = Applier | { readonly applier: Applier };

/** The applier a replay into `target` applies with. */
export function applierOf(target: ReplayTarget): Applier {
  return target instanceof Applier ? target : target.applier;
}

/**
 * The replay saga: rebuilds the engine's state at boot.
 *
 * 1. restore the newest snapshot that verifies (a corrupt or unreadable one is
 *    skipped with a warning, then an older one, then none: replay from op 1);
 * 2. stream the journal after the snapshot op through `Applier.apply`, the same
 *    function live commits use, in LevelDB batches; backpressure is natural
 *    because apply is synchronous and the next batch is read only after it;
 * 3. report progress and complete. A corrupt entry errors the stream with a
 *    JournalCorruptionError naming its op.
 */
export function replaySaga(
  journal: Journal,
  target: ReplayTarget,
  options: ReplaySagaOptions = {},
): Observable<ReplayProgress> {
  const applier = applierOf(target);
  const batchSize = options.batchSize ?? 1024;
  const intervalMs = options.progressIntervalMs ?? 1000;
  const logger = options.logger ?? SILENT_LOGGER;

  const onOutcome = options.onOutcome;
  const restore = () =>
    restoreSnapshot(journal, applier, logger, options.ignoreSnapshots ? 'oldest' : 'newest');
  return defer(() => from(restore())).pipe(
    switchMap((snapshotOp) => {
      const startedMs = performance.now();
      const totalEntries = Math.max(0, journal.lastOp - snapshotOp);
      let appliedEntries = 0;
      const report = (done: boolean): ReplayProgress => {
        const elapsedMs = performance.now() - startedMs;
        return {
          done,
          snapshotOp,
          appliedEntries,
          totalEntries,
          entriesPerSecond: elapsedMs > 0 ? Math.round((appliedEntries * 1000) / elapsedMs) : 0,
          elapsedMs: Math.round(elapsedMs),
          commitOp: applier.commitOp,
        };
      };
      applier.setDeferredReplies(onOutcome === undefined);
      const applied$ = from(journal.readBatches(snapshotOp + 1, batchSize)).pipe(
        map((batch) => {
          if (onOutcome) {
            for (const entry of batch) onOutcome(applier.apply(entry));
          } else {
            for (const entry of batch) applier.apply(entry);
          }
          appliedEntries += batch.length;
          return report(false);
        }),
        throttleTime(intervalMs, asyncScheduler, { leading: true, trailing: false }),
        finalize(() => applier.setDeferredReplies(false)),
      );
      return concat(
        applied$,
        defer(() => of(report(true))),
      );
    }),
  );
}

/** The first op a journal holds (1 unless it was compacted; the port may not say). */
export function firstOpOf(journal: Journal): number {
  return journal.firstOp ?? 1;
}

/**
 * Restores a snapshot into `applier` and returns its op (0: none restored,
 * replay from op 1). `newest`: the newest snapshot that restores (boot);
 * `oldest`: none on a whole journal, else the oldest that covers the
 * compacted ops (verification replays as much as the journal holds).
 *
 * A snapshot is usable when it decodes, is not ahead of the journal, and
 * covers the ops compacted away (its op is at least the journal's first op
 * minus one); a bad one is skipped with a warning. A compacted journal with
 * no usable snapshot cannot be rebuilt: SnapshotsUnusableError names the
 * first op kept and why each snapshot was skipped.
 *
 * A snapshot the code cannot take (a state no module provides, a version
 * above the code's: a {@link CodeChangeError}) stops the boot at once: an
 * older snapshot or a replay would meet the same code in the journal, and
 * the operator must hear what to change, not that something is corrupt.
 */
async function restoreSnapshot(
  journal: Journal,
  applier: Applier,
  logger: EngineLogger,
  choice: 'newest' | 'oldest',
): Promise<number> {
  const firstOp = firstOpOf(journal);
  if (choice === 'oldest' && firstOp <= 1) return 0;
  const records = await journal.listSnapshots();
  const ordered: SnapshotRecord[] = choice === 'newest' ? records : [...records].reverse();
  const another = choice === 'newest' ? 'an older one' : 'a newer one';
  const skipped: string[] = [];
  for (const record of ordered) {
    if ('error' in record) {
      skipped.push(`the snapshot at op ${record.op} is unreadable (${record.error})`);
      logger.warn(`snapshot at op ${record.op} is unreadable (${record.error}); trying ${another}`);
      continue;
    }
    if (record.op > journal.lastOp) {
      skipped.push(`the snapshot at op ${record.op} is ahead of the journal`);
      logger.warn(
        `snapshot at op ${record.op} is ahead of the journal (last op ${journal.lastOp}); skipped`,
      );
      continue;
    }
    if (record.op < firstOp - 1) {
      skipped.push(`the snapshot at op ${record.op} predates the journal's first op`);
      logger.warn(
        `snapshot at op ${record.op} predates the journal's first op ${firstOp} (earlier ops were compacted); skipped`,
      );
      continue;
    }
    try {
      const op = await applier.restoreSnapshotFromDisk(record.payload);
      const compacted =
        firstOp > 1 ? ` (the journal starts at op ${firstOp}: earlier ops were compacted)` : '';
      logger.log(
        new LogEvent('snapshot-restored', `snapshot restored at op ${op}${compacted}`, {
          snapshotOp: op,
          journalFirstOp: firstOp,
        }),
      );
      return op;
    } catch (error) {
      if (error instanceof CodeChangeError) throw error;
      skipped.push(`the snapshot at op ${record.op} does not restore (${String(error)})`);
      logger.warn(
        `snapshot at op ${record.op} does not restore (${String(error)}); trying ${another}`,
      );
    }
  }
  if (firstOp > 1) throw new SnapshotsUnusableError(firstOp, skipped);
  if (records.length > 0) logger.warn('no snapshot restored; replaying the journal from op 1');
  else if (choice === 'newest') {
    logger.log(
      new LogEvent(
        'snapshot-none',
        journal.lastOp === 0
          ? 'no snapshot (new data directory)'
          : 'no snapshot: replaying the journal from op 1',
        { snapshotOp: 0 },
      ),
    );
  }
  return 0;
}
