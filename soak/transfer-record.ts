import {
  AlreadyAppliedError,
  ClientClosedError,
  CommandRefusedError,
  OnceError,
  OutcomeUnknownError,
  RequestTimeoutError,
} from '@once/sdk';

/** One `ledger.transfer` as the soak issued it; `reference` is unique in the run. */
export interface Transfer {
  readonly reference: string;
  readonly from: string;
  readonly to: string;
  readonly amount: number;
}

/** The ledger's refusal of a transfer whose reference was applied before. */
export const DUPLICATE_REFERENCE = 'DUPLICATE_REFERENCE';
/** The ledger's refusal of a transfer the source account cannot cover. */
export const INSUFFICIENT_FUNDS = 'INSUFFICIENT_FUNDS';

/**
 * What the issuing client learnt about a transfer:
 * - `acknowledged`: the command resolved; the node promises it was applied once;
 * - `refused`: a committed refusal of the handler (`code`, INSUFFICIENT_FUNDS
 *   in a sound run): the node promises it was not applied;
 * - `duplicate`: refused DUPLICATE_REFERENCE, although the soak sent this
 *   reference only once: an earlier application of this very command, i.e. it
 *   was applied twice (a violation);
 * - `in-doubt`: OutcomeUnknownError (`why` = its reason), AlreadyAppliedError
 *   (`ALREADY_APPLIED`: applied, result unknown) or a RequestTimeoutError after
 *   it was sent: the outcome is settled by the final probe, not a violation;
 * - `not-sent`: ClientClosedError or a RequestTimeoutError before it was
 *   numbered: the node never saw it, so it must not be applied;
 * - `failed`: any other error (`why` = its code): an unexpected SDK answer,
 *   reported; the probe still settles whether it was applied.
 */
export type TransferOutcome =
  | { readonly kind: 'acknowledged' }
  | { readonly kind: 'refused'; readonly code: string }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'in-doubt'; readonly why: string }
  | { readonly kind: 'not-sent'; readonly why: string }
  | { readonly kind: 'failed'; readonly why: string };

/** The outcome of every acknowledged transfer, shared: a long run records millions. */
export const ACKNOWLEDGED: TransferOutcome = Object.freeze({ kind: 'acknowledged' });

export interface TransferRecord extends Transfer {
  readonly outcome: TransferOutcome;
}

/** The `why` of an in-doubt transfer the node said was applied (its reply left the cache). */
export const ALREADY_APPLIED = 'ALREADY_APPLIED';

/** Classifies the rejection of a `ledger.transfer` command. */
export function outcomeOfError(error: unknown): TransferOutcome {
  if (error instanceof CommandRefusedError) {
    return error.code === DUPLICATE_REFERENCE
      ? { kind: 'duplicate' }
      : { kind: 'refused', code: error.code };
  }
  if (error instanceof OutcomeUnknownError) {
    return { kind: 'in-doubt', why: `OUTCOME_UNKNOWN(${error.reason})` };
  }
  if (error instanceof AlreadyAppliedError) return { kind: 'in-doubt', why: ALREADY_APPLIED };
  if (error instanceof RequestTimeoutError) {
    return error.request === undefined
      ? { kind: 'not-sent', why: error.code }
      : { kind: 'in-doubt', why: error.code };
  }
  if (error instanceof ClientClosedError) return { kind: 'not-sent', why: error.code };
  if (error instanceof OnceError) return { kind: 'failed', why: error.code };
  return { kind: 'failed', why: error instanceof Error ? error.name : String(error) };
}
