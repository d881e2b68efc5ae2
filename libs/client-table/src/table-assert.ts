import { TableInvariantError } from './table-invariant.error';

/**
 * Asserts an invariant of the client table. Kept as a plain function so that hot
 * paths can afford it. A message that formats values is best passed as a function:
 * a template literal argument is built on every call, failing or not (with a BigInt
 * turned into text, that costs more than the checks themselves), a function only
 * when the assertion fails.
 */
export function tableAssert(
  condition: boolean,
  message: string | (() => string),
): asserts condition {
  if (!condition) {
    throw new TableInvariantError(typeof message === 'function' ? message() : message);
  }
}
