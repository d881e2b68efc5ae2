/**
 * The public API of `@once/client-table`: the errors (each with its stable
 * `code`) a node meets in its client table. The table itself is for the
 * sibling packages: `@once/client-table/internal`.
 *
 * @packageDocumentation
 * @public
 */
export { InvalidTableOptionsError } from './invalid-table-options.error';
export { TableInvariantError } from './table-invariant.error';
export { TableSnapshotInvalidError } from './table-snapshot-invalid.error';
