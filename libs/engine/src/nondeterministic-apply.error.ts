import { CodeChangeError } from './code-change.error';

/** What the node knows of a reply that differs from the one it acknowledged. */
export interface ReplyDifference {
  /** The op of the command whose reply differs. */
  readonly op: number;
  readonly pattern: string;
  /** The state (module) whose version the handler reads; undefined when it reads none. */
  readonly state: string | undefined;
  /** Every state's version in force at `op`. */
  readonly versions: Readonly<Record<string, number>>;
  /** The reply body computed now. */
  readonly computedReply: string;
  /** XXH3-128 of the acknowledged reply body, 32 hex digits (the journal keeps only this). */
  readonly journaledChecksum: string;
  /** XXH3-128 of `computedReply`. */
  readonly computedChecksum: string;
  /** The op of the REPLY_CHECK entry that recorded the acknowledged reply. */
  readonly checkOp: number;
}

/**
 * Applying a journaled command again (replay, or a follower) gave another
 * reply than the one acknowledged when it first applied: the handler's code
 * changed without a version bump, or it is not deterministic. The node stops
 * at that op and serves nothing computed from it.
 */
export class NondeterministicApplyError extends CodeChangeError {
  readonly code = 'NONDETERMINISTIC_APPLY';
  readonly op: number;
  constructor(readonly difference: ReplyDifference) {
    const { op, pattern, state, versions, computedReply, journaledChecksum, checkOp } = difference;
    const version =
      state === undefined
        ? 'no module version'
        : `module "${state}" at version ${versions[state] ?? 1}`;
    super(
      `the command "${pattern}" at op ${op} (${version}) now replies ${computedReply}, not the reply acknowledged when it was first applied (checksum ${journaledChecksum}, journaled at op ${checkOp}): its handler changed without a version bump, or is not deterministic; bump the module's version and keep the old rule for older entries (ctx.version), then restart`,
    );
    this.op = op;
  }
}
