import { type ApplyOutcome } from './apply-outcome';
import { type EngineLogger } from './engine-logger';

/** Called with the outcome of the one entry a caller submitted, once it is durable and applied. */
export type OutcomeCallback = (outcome: ApplyOutcome) => void;

/**
 * The submitters waiting for their entry to be durable and applied, by op.
 * Each is called back at most once: with its outcome when the entry applies.
 */
export class PendingSubmissions {
  private readonly outcomes = new Map<number, OutcomeCallback>();

  constructor(private readonly logger: EngineLogger) {}

  add(op: number, onOutcome: OutcomeCallback): void {
    this.outcomes.set(op, onOutcome);
  }

  /** Hands `outcome` to whoever submitted its entry, if anyone waits on it. */
  settle(outcome: ApplyOutcome): void {
    const op = outcome.entry.op;
    const onOutcome = this.outcomes.get(op);
    if (onOutcome === undefined) return;
    this.outcomes.delete(op);
    notify(this.logger, onOutcome, outcome);
  }

  /** The journal failed: nothing pending will ever apply. */
  clear(): void {
    this.outcomes.clear();
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
