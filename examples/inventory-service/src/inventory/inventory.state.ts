import { KeyedState, ReplicatedState } from '@once/framework';

/** One order's hold on stock. */
export interface Reservation {
  readonly warehouse: string;
  readonly sku: string;
  readonly quantity: number;
}

/**
 * The picture a snapshot held while this state was a whole-object
 * `ModuleState` (releases before it kept keyed records): sorted arrays, the
 * reserved totals derived from the reservations, not stored.
 */
export interface WholeInventoryPicture {
  readonly available: Array<[string, number]>;
  readonly reservations: Array<[string, Reservation]>;
}

/**
 * Everything the inventory's commands change, and nothing else: stock still
 * available per warehouse and SKU, the units reserved there, and the
 * reservation each order id made.
 *
 * It is the module's replicated state: only the apply steps of the
 * `@Command` handlers change it, and once rebuilds it at boot from the
 * newest snapshot and the journal after it.
 *
 * Keyed state (`KeyedState`): every map here grows with the business (SKUs
 * times warehouses, and one reservation per order, forever), and every
 * handler reads or writes a record by its key. So the records live in the
 * node's LevelDB, read through a bounded cache, and a snapshot writes only
 * those changed since the previous one instead of copying the whole state.
 * A keyed map cannot be listed or walked, and nothing here needs to: no
 * handler lists the reservations or the stock of a warehouse, and the open
 * warehouses are deployment settings read by the guard, not state. A query
 * that had to list (the reservations of one warehouse, say) would need an
 * index written by the same apply steps, or a whole-object `ModuleState`
 * for that small part. For the same reason the reserved totals are kept as
 * records: with no walk over the reservations, they cannot be derived.
 */
@ReplicatedState('inventory')
export class InventoryState extends KeyedState {
  /** Units available, by `stockKey(warehouse, sku)`. */
  private readonly available = this.map<number>('available');
  /** Units reserved, by `stockKey(warehouse, sku)`: the sum of the reservations made there. */
  private readonly reserved = this.map<number>('reserved');
  /** Reservations by order id: a second reservation under the same id is refused. */
  private readonly reservations = this.map<Reservation>('reservations');

  availableOf(warehouse: string, sku: string): number {
    return this.available.get(stockKey(warehouse, sku)) ?? 0;
  }

  /** The reservation `orderId` made (a frozen copy), if any. */
  reservedUnder(orderId: string): Reservation | undefined {
    return this.reservations.get(orderId);
  }

  /** Units reserved so far at `warehouse` for `sku`, over every order. */
  reservedOf(warehouse: string, sku: string): number {
    return this.reserved.get(stockKey(warehouse, sku)) ?? 0;
  }

  /** Adds units; returns the new number available. */
  add(warehouse: string, sku: string, quantity: number): number {
    const available = this.availableOf(warehouse, sku) + quantity;
    this.available.set(stockKey(warehouse, sku), available);
    return available;
  }

  /** Moves units from available to `orderId`'s reservation; the caller has checked both. */
  reserve(orderId: string, reservation: Reservation): number {
    const { warehouse, sku, quantity } = reservation;
    const key = stockKey(warehouse, sku);
    const available = this.availableOf(warehouse, sku) - quantity;
    this.available.set(key, available);
    this.reserved.set(key, this.reservedOf(warehouse, sku) + quantity);
    // A record is a JSON value of its own: the fields, not whatever object the caller passed.
    this.reservations.set(orderId, { warehouse, sku, quantity });
    return available;
  }

  /**
   * A snapshot written before the inventory kept keyed records (its picture
   * is {@link WholeInventoryPicture}): its stock and reservations become
   * records, and the reserved totals are summed from the reservations, as
   * the whole-object version derived them. The next snapshot writes them.
   */
  protected override importSnapshot(snapshot: unknown): void {
    const { available, reservations } = snapshot as WholeInventoryPicture;
    for (const [key, units] of available) this.available.set(key, units);
    for (const [orderId, { warehouse, sku, quantity }] of reservations) {
      const key = stockKey(warehouse, sku);
      this.reserved.set(key, (this.reserved.get(key) ?? 0) + quantity);
      this.reservations.set(orderId, { warehouse, sku, quantity });
    }
  }
}

function stockKey(warehouse: string, sku: string): string {
  return `${warehouse}/${sku}`;
}
