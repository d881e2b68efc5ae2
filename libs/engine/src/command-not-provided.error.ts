import { CodeChangeError } from './code-change.error';

/**
 * A journaled command names a pattern the code in force at its op
 * dispatched, and no handler of this code claims it any more: its entry
 * cannot be applied as it was, and skipping it would change history.
 */
export class CommandNotProvidedError extends CodeChangeError {
  readonly code = 'COMMAND_NOT_PROVIDED';
  constructor(
    readonly op: number,
    readonly pattern: string,
    where = `the journaled command at op ${op}`,
  ) {
    super(
      `${where} names the command "${pattern}", which no handler of this code provides; restore its handler, or retire it on purpose (OnceModule option retired: { commands: ["${pattern}"] }, or ONCE_RETIRED_COMMANDS=${pattern} for the reference service): its old entries then change nothing and answer COMMAND_RETIRED`,
    );
  }
}
