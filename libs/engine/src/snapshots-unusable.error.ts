/**
 * The journal was compacted below the ops a replay needs, and no snapshot
 * that covers them restores: nothing is corrupt in the journal itself, but
 * the state cannot be rebuilt. Names why each snapshot was skipped.
 */
export class SnapshotsUnusableError extends Error {
  readonly code = 'SNAPSHOTS_UNUSABLE';
  constructor(
    /** The journal's first op: everything before it was compacted away. */
    readonly journalFirstOp: number,
    readonly reasons: readonly string[],
  ) {
    const why = reasons.length > 0 ? `: ${reasons.join('; ')}` : ': there is none';
    super(
      `the journal starts at op ${journalFirstOp} (earlier ops were compacted) and no snapshot that covers them restores${why}`,
    );
  }
}
