/**
 * What a client table holds besides its entries, as a plain JSON value: its limits and its
 * number of entries. Kept next to the per-entry records (see {@link encodeEntryRecord}) so
 * that {@link ClientTable.fromEntries} can rebuild the table and tell a complete set of
 * records from one that lost or gained some.
 */
export interface ClientTableHeader {
  /** {@link ClientTable.capacity}. */
  readonly capacity: number;
  /** {@link ClientTable.ring}. */
  readonly ring: number;
  /** {@link ClientTable.size}: the number of records that describe the table. */
  readonly size: number;
}
