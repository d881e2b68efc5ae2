import { type Journal } from '@once/journal';
import { lastValueFrom } from 'rxjs';
import { type ReplayTarget, applierOf, replaySaga } from './replay-saga';

/** What replaying the whole journal found. */
export interface ReplayVerification {
  /** Journal entries replayed (all of them: every checksum and op verified). */
  readonly entries: number;
  /**
   * First op replayed: 1, or on a compacted journal the op after the snapshot
   * the replay started from (`startSnapshotOp`).
   */
  readonly fromOp: number;
  /** The snapshot the replay started from on a compacted journal; undefined from op 1. */
  readonly startSnapshotOp: number | undefined;
  /** Op of the newest readable snapshot, compared with the replay at that op; undefined if none. */
  readonly snapshotOp: number | undefined;
  /** Whether the replayed state at `snapshotOp` equals that snapshot byte for byte. */
  readonly snapshotMatches: boolean | undefined;
}

/**
 * Replays the whole journal into `target` (fresh, at genesis) and compares
 * the state it reaches at the newest snapshot's op with that snapshot, byte
 * for byte: the snapshot is what the live node had at that op, so a
 * difference means the apply path is not deterministic (or the snapshot or
 * journal was tampered with). Nothing is written. A corrupt entry rejects
 * with the journal's JournalCorruptionError naming the op.
 *
 * "Whole" is from op 1, or, on a compacted journal (its first op above 1,
 * the ops before it gone), from the oldest snapshot that covers the gap; the
 * newest snapshot is then compared when it is a later one.
 */
export async function verifyReplay(
  journal: Journal,
  target: ReplayTarget,
): Promise<ReplayVerification> {
  const applier = applierOf(target);
  // Newest first; a snapshot ahead of the journal describes ops it does not hold.
  const readable = (await journal.listSnapshots()).filter(
    (record): record is { op: number; payload: Buffer } =>
      'payload' in record && record.op <= journal.lastOp,
  );
  let compared: { op: number; payload: Buffer } | undefined;
  let matches: boolean | undefined;
  const compare = () => {
    if (compared) matches = applier.captureSnapshot().equals(compared.payload);
  };
  let fromOp: number | undefined;
  const progress = await lastValueFrom(
    replaySaga(journal, applier, {
      ignoreSnapshots: true,
      progressIntervalMs: 60_000,
      onOutcome: (outcome) => {
        if (fromOp === undefined) {
          // The start is known now: the newest snapshot past it is the one to compare.
          fromOp = outcome.entry.op;
          compared = readable.find((record) => record.op >= outcome.entry.op);
        }
        if (compared && outcome.entry.op === compared.op) compare();
      },
    }),
  );
  const startSnapshotOp = progress.snapshotOp > 0 ? progress.snapshotOp : undefined;
  if (fromOp === undefined && startSnapshotOp === undefined) {
    // Nothing replayed from genesis: only a snapshot at op 0 can be compared.
    compared = readable.find((record) => record.op === 0);
    compare();
  }
  return {
    entries: progress.appliedEntries,
    fromOp: progress.snapshotOp + 1,
    startSnapshotOp,
    snapshotOp: compared?.op,
    snapshotMatches: matches,
  };
}
