import { type OnceMetricsSource } from './metrics-source';

/** Options of {@link livenessOf} and {@link readinessOf}. */
export interface ReadinessOptions {
  /**
   * Cluster mode: the most ops a node may be behind the stream (as far as it
   * knows, see `ClusterMetricsView.streamOp`) and still be ready. Default 1000.
   */
  readonly applyLagOpsMax?: number;
}

export const DEFAULT_APPLY_LAG_OPS_MAX = 1000;

/** A verdict and the facts it was drawn from (what a health endpoint shows). */
export interface HealthVerdict {
  readonly up: boolean;
  readonly details: Readonly<Record<string, unknown>>;
}

/**
 * Live: the process can still become or stay useful without a restart. Down
 * only once it cannot: its journal failed (the node is fail-stop: it takes
 * no more writes until restarted) or its boot failed. A node still opening
 * or replaying is live.
 */
export function livenessOf(source: OnceMetricsSource | undefined): HealthVerdict {
  if (source === undefined) return { up: true, details: { phase: 'opening' } };
  const { engine } = source;
  const bootFailure = source.bootFailure?.();
  if (bootFailure !== undefined) {
    return { up: false, details: { phase: engine.phase, reason: 'boot failed' } };
  }
  const stopped = engine.stoppedApplying;
  if (stopped !== undefined) {
    return {
      up: false,
      details: { phase: engine.phase, stoppedApplying: stoppedApplyingOf(stopped) },
    };
  }
  const journalFailed = source.journal.failed !== undefined || engine.phase === 'failed';
  if (journalFailed) return { up: false, details: { phase: engine.phase, journal: 'failed' } };
  return { up: true, details: { phase: engine.phase } };
}

/**
 * Ready: send it traffic. Replay is done (the engine serves), the journal
 * has not failed and, in cluster mode, the node is within `applyLagOpsMax`
 * of the stream. While replaying, the details carry the replay's progress.
 */
export function readinessOf(
  source: OnceMetricsSource | undefined,
  options: ReadinessOptions = {},
): HealthVerdict {
  if (source === undefined) return { up: false, details: { phase: 'opening' } };
  const { engine } = source;
  const journal = source.journal.failed === undefined ? 'ok' : 'failed';
  const details: Record<string, unknown> = {
    phase: engine.phase,
    commitOp: engine.commitOp,
    journal,
  };
  let up = engine.ready && journal === 'ok';
  const stopped = engine.stoppedApplying;
  if (stopped !== undefined) details.stoppedApplying = stoppedApplyingOf(stopped);
  const progress = source.replayProgress?.();
  if (engine.phase === 'replaying' || engine.phase === 'created') {
    details.replay = {
      appliedEntries: progress?.appliedEntries ?? 0,
      totalEntries: progress?.totalEntries ?? Math.max(0, source.journal.lastOp - engine.commitOp),
    };
  }
  const cluster = source.cluster;
  if (cluster !== undefined) {
    const applyLagOps = Math.max(0, cluster.streamOp - engine.commitOp);
    const lagMax = options.applyLagOpsMax ?? DEFAULT_APPLY_LAG_OPS_MAX;
    details.role = cluster.view.role;
    details.applyLagOps = applyLagOps;
    if (applyLagOps > lagMax) up = false;
  }
  return { up, details };
}

/**
 * Why the node stopped applying the journal (an entry its code cannot apply
 * as it was: a version it lacks, a reply that differs): its code and op.
 * Not the message, which may quote a reply: the node's log has it.
 */
function stoppedApplyingOf(error: Error): Record<string, unknown> {
  const { code, op } = error as { code?: unknown; op?: unknown };
  return {
    code: typeof code === 'string' ? code : null,
    op: typeof op === 'number' ? op : null,
  };
}
