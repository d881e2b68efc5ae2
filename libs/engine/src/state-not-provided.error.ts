import { CodeChangeError } from './code-change.error';

/**
 * A snapshot or the manifest in force holds a state no module of this code
 * provides, and the code did not retire it: dropping its data silently could
 * lose a team's state to a mistaken deployment, so the node says how to
 * retire it instead.
 */
export class StateNotProvidedError extends CodeChangeError {
  readonly code = 'STATE_NOT_PROVIDED';
  constructor(
    readonly op: number,
    readonly stateName: string,
    where: string,
  ) {
    super(
      `${where} holds the state "${stateName}" that no module provides; restore the module, or retire the state on purpose (OnceModule option retired: { states: ["${stateName}"] }, or ONCE_RETIRED_STATES=${stateName} for the reference service) to drop its data`,
    );
  }
}
