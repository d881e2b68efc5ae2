import { type ModuleState, ReplicatedState } from '@once/framework';

/** One order's hold on stock. */
export interface Reservation {
  readonly warehouse: string;
  readonly sku: string;
  readonly quantity: number;
}

/**
 * What a snapshot of the inventory holds: plain arrays, sorted, so equal
 * states give equal bytes. The reserved totals are derived, not stored.
 */
interface InventorySnapshot {
  readonly available: Array<[string, number]>;
  readonly reservations: Array<[string, Reservation]>;
}

/**
 * Everything the inventory's commands change, and nothing else: stock still
 * available per warehouse and SKU, and the reservation each order id made.
 *
 * It is the module's replicated state: once rebuilds it at boot from the
 * newest snapshot and the journal after it, so only the apply steps of the
 * `@Command` handlers may change it, and `toSnapshot` must be deterministic
 * (replay is checked byte for byte). Maps are written as sorted arrays.
 */
@ReplicatedState('inventory')
export class InventoryState implements ModuleState {
  /** Units available, by `stockKey(warehouse, sku)`. */
  private readonly available = new Map<string, number>();
  /** Units reserved, by `stockKey(warehouse, sku)` (the sum of the reservations). */
  private readonly reserved = new Map<string, number>();
  /** Reservations by order id: a second reservation under the same id is refused. */
  private readonly reservations = new Map<string, Reservation>();

  availableOf(warehouse: string, sku: string): number {
    return this.available.get(stockKey(warehouse, sku)) ?? 0;
  }

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
    this.reservations.set(orderId, reservation);
    return available;
  }

  toSnapshot(): InventorySnapshot {
    return {
      available: [...this.available].sort(byKey),
      reservations: [...this.reservations].sort(byKey),
    };
  }

  fromSnapshot(snapshot: unknown): void {
    const { available, reservations } = snapshot as InventorySnapshot;
    this.available.clear();
    this.reserved.clear();
    this.reservations.clear();
    for (const [key, units] of available) this.available.set(key, units);
    for (const [orderId, reservation] of reservations) {
      const key = stockKey(reservation.warehouse, reservation.sku);
      this.reserved.set(key, (this.reserved.get(key) ?? 0) + reservation.quantity);
      this.reservations.set(orderId, reservation);
    }
  }
}

function stockKey(warehouse: string, sku: string): string {
  return `${warehouse}/${sku}`;
}

function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
