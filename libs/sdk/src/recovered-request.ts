/**
 * The outcome of a command a previous process left in doubt (found in the
 * identity file at connect, resent under its original number):
 * - `applied`: committed; `result` is the handler's result (a cached reply);
 * - `refused`: committed as the handler's refusal (`code`, `message`);
 * - `already-applied-result-unknown`: applied, reply no longer cached;
 * - `outcome-unknown`: the session was gone (`reason`), so it was not resent;
 *   it may or may not have been applied.
 * Every request is applied at most once in all cases.
 */
export type RecoveredRequest =
  | {
      readonly request: number;
      readonly pattern: string;
      readonly outcome: 'applied';
      readonly result: unknown;
    }
  | {
      readonly request: number;
      readonly pattern: string;
      readonly outcome: 'refused';
      readonly code: string;
      readonly message: string;
    }
  | {
      readonly request: number;
      readonly pattern: string;
      readonly outcome: 'already-applied-result-unknown';
    }
  | {
      readonly request: number;
      readonly pattern: string;
      readonly outcome: 'outcome-unknown';
      readonly reason: string;
    };
