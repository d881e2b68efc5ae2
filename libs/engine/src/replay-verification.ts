import { type Journal } from '@once/journal/internal';
import { lastValueFrom } from 'rxjs';
import { type Applier } from './applier';
import { decodeEngineSnapshot } from './engine-snapshot-codec';
import { markerOfRecords } from './keyed';
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
  /**
   * Op of the snapshot the keyed records on disk belong to (their head),
   * when it is readable and has keyed state; undefined otherwise.
   */
  readonly recordsOp?: number;
  /**
   * Whether the keyed records on disk give that snapshot's marker (digest
   * and counts): the records a boot would read are the ones the snapshot
   * describes. The replay itself writes its records in memory, so this is
   * the only check of the records on disk.
   */
  readonly recordsMatch?: boolean;
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
    if (!compared) return;
    const replayed = applier.captureSnapshot();
    matches =
      replayed.equals(compared.payload) || sameThroughThisCode(applier, compared.payload, replayed);
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
  const records = await checkRecordsOnDisk(journal, readable);
  return {
    ...records,
    entries: progress.appliedEntries,
    fromOp: progress.snapshotOp + 1,
    startSnapshotOp,
    snapshotOp: compared?.op,
    snapshotMatches: matches,
  };
}

/**
 * Whether a snapshot written before its states kept keyed records holds the
 * state `replayed` (this code's capture at its op) holds: false for any
 * other snapshot, whose bytes this code would have written as they are.
 *
 * Why: such a snapshot (engine-snapshot format 2 or older, from a data
 * directory upgraded from format 2) holds a keyed state as the whole-object
 * picture the older code wrote, and this code captures that state as records
 * and their marker, so the bytes differ however equal the states are. Until
 * the upgraded node writes its first snapshot this is the newest snapshot,
 * the one compared. It is compared through this code instead: restored, the
 * picture imported as records (`KeyedState.importSnapshot`), and captured
 * again. The replay then goes on from the state restored, which equals the
 * replayed one when they match; it no longer checks the replies of the ops
 * before, as a boot from that snapshot would not. A snapshot this code cannot
 * restore rejects the verification with the reason.
 */
function sameThroughThisCode(applier: Applier, stored: Buffer, replayed: Buffer): boolean {
  if (decodeEngineSnapshot(replayed).keyed === undefined) return false;
  let written;
  try {
    written = decodeEngineSnapshot(stored);
  } catch {
    return false;
  }
  if (written.keyed !== undefined) return false;
  applier.restoreSnapshot(stored);
  return applier.captureSnapshot().equals(replayed);
}

/**
 * Compares the keyed records on disk with the marker of the snapshot their
 * head names (see {@link ReplayVerification.recordsMatch}); nothing when
 * there are none, or that snapshot is unreadable or has no keyed state.
 */
async function checkRecordsOnDisk(
  journal: Journal,
  readable: ReadonlyArray<{ op: number; payload: Buffer }>,
): Promise<{ recordsOp?: number; recordsMatch?: boolean }> {
  const head = journal.keyed?.head();
  if (head === undefined) return {};
  const snapshot = readable.find((record) => record.op === head.op);
  if (snapshot === undefined) return {};
  let marker;
  try {
    marker = decodeEngineSnapshot(snapshot.payload).keyed;
  } catch {
    return {};
  }
  if (marker === undefined) return {};
  const onDisk = await markerOfRecords(journal.keyed!.records(head.generation));
  return { recordsOp: head.op, recordsMatch: JSON.stringify(onDisk) === JSON.stringify(marker) };
}
