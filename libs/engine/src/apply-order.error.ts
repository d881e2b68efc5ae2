/**
 * An entry arrived out of op order. This is a bug (or a journal that skipped
 * an op), never a client's doing: applying it would fork the state from what a
 * replay rebuilds.
 */
export class ApplyOrderError extends Error {
  readonly code = 'APPLY_ORDER';
  constructor(
    readonly op: number,
    readonly commitOp: number,
    detail?: string,
  ) {
    super(
      detail ?? `entry op ${op} applied after op ${commitOp}; ops must apply in order, once each`,
    );
  }
}
