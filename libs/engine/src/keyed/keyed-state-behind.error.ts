/**
 * A snapshot with keyed state cannot be restored: the keyed records on disk
 * are at another op (a newer snapshot wrote them, or they are missing). Boot
 * then tries an older snapshot and, failing those, replays from op 1 into
 * fresh keyed records; it is never an error an operator must act on alone.
 */
export class KeyedStateBehindError extends Error {
  readonly code = 'KEYED_STATE_BEHIND';
  constructor(
    readonly snapshotOp: number,
    readonly recordsOp: number | undefined,
  ) {
    super(
      recordsOp === undefined
        ? `the snapshot at op ${snapshotOp} has keyed state, and the data directory holds no keyed records`
        : `the snapshot at op ${snapshotOp} has keyed state, and the keyed records on disk are those of op ${recordsOp}`,
    );
  }
}
