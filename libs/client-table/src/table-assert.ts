import { TableInvariantError } from './table-invariant.error';

/**
 * Asserts an invariant of the client table. Kept as a plain function (no message
 * formatting unless it fails) so that hot paths can afford it.
 */
export function tableAssert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new TableInvariantError(message);
}
