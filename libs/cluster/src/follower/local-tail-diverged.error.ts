/**
 * The node's local copy of the journal disagrees with the cluster's stream
 * at `op`: it holds an entry the stream does not (a tail the stream lost,
 * or that was never acknowledged by it), or other bytes at the same op. The
 * node must not boot on it: applying the stream after it would build a state
 * no other node has. Code `LOCAL_TAIL_DIVERGED`.
 */
export class LocalTailDivergedError extends Error {
  readonly code = 'LOCAL_TAIL_DIVERGED';

  constructor(
    readonly op: number,
    reason: string,
  ) {
    super(`the local journal disagrees with the cluster's stream at op ${op}: ${reason}`);
    this.name = 'LocalTailDivergedError';
  }
}
