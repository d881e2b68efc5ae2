import { type Journal } from '@once/journal';
import { lastValueFrom } from 'rxjs';
import { type ReplayTarget, applierOf, replaySaga } from './replay-saga';

/** What replaying a whole journal from op 1 found. */
export interface ReplayVerification {
  /** Journal entries replayed (all of them: every checksum and op verified). */
  readonly entries: number;
  /** Op of the newest readable snapshot, compared with the replay at that op; undefined if none. */
  readonly snapshotOp: number | undefined;
  /** Whether the replayed state at `snapshotOp` equals that snapshot byte for byte. */
  readonly snapshotMatches: boolean | undefined;
}

/**
 * Replays the whole journal from op 1 into `target` (fresh, at genesis) and
 * compares the state it reaches at the newest snapshot's op with that
 * snapshot, byte for byte: the snapshot is what the live node had at that op,
 * so a difference means the apply path is not deterministic (or the snapshot
 * or journal was tampered with). Nothing is written. A corrupt entry rejects
 * with the journal's JournalCorruptionError naming the op.
 */
export async function verifyReplay(
  journal: Journal,
  target: ReplayTarget,
): Promise<ReplayVerification> {
  const applier = applierOf(target);
  const snapshot = (await journal.listSnapshots()).find(
    (record): record is { op: number; payload: Buffer } =>
      'payload' in record && record.op <= journal.lastOp,
  );
  let matches: boolean | undefined;
  const progress = await lastValueFrom(
    replaySaga(journal, applier, {
      ignoreSnapshots: true,
      progressIntervalMs: 60_000,
      onOutcome: (outcome) => {
        if (snapshot && outcome.entry.op === snapshot.op) {
          matches = applier.captureSnapshot().equals(snapshot.payload);
        }
      },
    }),
  );
  if (snapshot && snapshot.op === 0) matches = applier.captureSnapshot().equals(snapshot.payload);
  return { entries: progress.appliedEntries, snapshotOp: snapshot?.op, snapshotMatches: matches };
}
