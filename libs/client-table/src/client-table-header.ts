/**
 * What a client table holds besides its entries, as a plain JSON value: its limits and its
 * number of entries. Kept next to the per-entry records (see `encodeEntryRecord`) so
 * that `ClientTable.fromEntries` can rebuild the table and tell a complete set of
 * records from one that lost or gained some.
 */
export interface ClientTableHeader {
  /** `ClientTable.capacity`. */
  readonly capacity: number;
  /** `ClientTable.ring`. */
  readonly ring: number;
  /** `ClientTable.size`: the number of records that describe the table. */
  readonly size: number;
}
