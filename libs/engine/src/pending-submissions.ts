import { type ApplyOutcome } from './apply-outcome';
import { type EngineLogger } from './engine-logger';

/** Called with the outcome of the one entry a caller submitted, once it is durable and applied. */
export type OutcomeCallback = (outcome: ApplyOutcome) => void;

/** Called when the entry a caller submitted will never apply: the journal failed before it was durable. */
export type FailureCallback = (error: Error) => void;

/**
 * The submitters waiting for their entry to be durable and applied, by op.
 *
 * Each is called back at most once: with its outcome when the entry applies,
 * or, if it gave a failure callback, with the journal's error when the
 * journal fails first. Nobody may be left waiting on a failed journal: a
 * boot step that waits forever is a node that neither serves nor exits.
 */
export class PendingSubmissions {
  private readonly outcomes = new Map<number, OutcomeCallback>();
  /** Only submitters that asked to hear of failure; most (the gateway's) learn of it by phase. */
  private readonly failures = new Map<number, FailureCallback>();

  constructor(private readonly logger: EngineLogger) {}

  add(op: number, onOutcome: OutcomeCallback | undefined, onFailed?: FailureCallback): void {
    if (onOutcome) this.outcomes.set(op, onOutcome);
    if (onFailed) this.failures.set(op, onFailed);
  }

  /** Hands `outcome` to whoever submitted its entry, if anyone waits on it. */
  settle(outcome: ApplyOutcome): void {
    const op = outcome.entry.op;
    if (this.failures.size > 0) this.failures.delete(op);
    const onOutcome = this.outcomes.get(op);
    if (onOutcome === undefined) return;
    this.outcomes.delete(op);
    notify(this.logger, onOutcome, outcome);
  }

  /**
   * The journal failed: nothing pending will ever apply. Every submitter
   * that gave a failure callback gets `error`, in op order; the others are
   * dropped without a call.
   */
  failAll(error: Error): void {
    const failures = [...this.failures.values()];
    this.failures.clear();
    this.outcomes.clear();
    for (const onFailed of failures) {
      try {
        onFailed(error);
      } catch (callbackError) {
        this.logger.error(`a failure callback failed: ${String(callbackError)}`);
      }
    }
  }
}

/**
 * Calls an outcome listener; a throwing listener is logged, not rethrown:
 * it must not keep the entries after it from being applied and answered.
 */
export function notify(
  logger: EngineLogger,
  listener: (outcome: ApplyOutcome) => void,
  outcome: ApplyOutcome,
): void {
  try {
    listener(outcome);
  } catch (error) {
    logger.error(`an outcome listener failed at op ${outcome.entry.op}: ${String(error)}`);
  }
}
