import { Module } from '@nestjs/common';
import { type ModuleState, ReplicatedState } from '@once/framework';
import { InventoryController } from '../../src/inventory/inventory.controller';
import {
  InventoryState,
  type Reservation,
  type WholeInventoryPicture,
} from '../../src/inventory/inventory.state';
import { OPEN_WAREHOUSES, openWarehousesFrom } from '../../src/inventory/open-warehouses';
import { WarehouseGuard } from '../../src/inventory/warehouse.guard';

/**
 * The inventory as the team deployed it before it kept keyed records: the
 * same commands and rules, its state a whole-object `ModuleState` held in
 * memory and written whole into every snapshot. Data directories it wrote
 * are what the keyed release (src/inventory/inventory.state.ts) meets in
 * production; its `importSnapshot` reads this picture.
 */
@ReplicatedState('inventory')
export class WholeObjectInventoryState implements ModuleState {
  private readonly available = new Map<string, number>();
  private readonly reserved = new Map<string, number>();
  private readonly reservations = new Map<string, Reservation>();

  availableOf(warehouse: string, sku: string): number {
    return this.available.get(stockKey(warehouse, sku)) ?? 0;
  }

  reservedUnder(orderId: string): Reservation | undefined {
    return this.reservations.get(orderId);
  }

  reservedOf(warehouse: string, sku: string): number {
    return this.reserved.get(stockKey(warehouse, sku)) ?? 0;
  }

  add(warehouse: string, sku: string, quantity: number): number {
    const available = this.availableOf(warehouse, sku) + quantity;
    this.available.set(stockKey(warehouse, sku), available);
    return available;
  }

  reserve(orderId: string, reservation: Reservation): number {
    const { warehouse, sku, quantity } = reservation;
    const key = stockKey(warehouse, sku);
    const available = this.availableOf(warehouse, sku) - quantity;
    this.available.set(key, available);
    this.reserved.set(key, this.reservedOf(warehouse, sku) + quantity);
    this.reservations.set(orderId, reservation);
    return available;
  }

  /** Sorted arrays, so equal states give equal bytes; the reserved totals are derived. */
  toSnapshot(): WholeInventoryPicture {
    return {
      available: [...this.available].sort(byKey),
      reservations: [...this.reservations].sort(byKey),
    };
  }

  fromSnapshot(snapshot: unknown): void {
    const { available, reservations } = snapshot as WholeInventoryPicture;
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

/**
 * The inventory module of that release: the example's own controller and
 * guard, the whole-object state provided where they inject `InventoryState`
 * (both have the methods the controller calls).
 */
@Module({
  controllers: [InventoryController],
  providers: [
    { provide: InventoryState, useClass: WholeObjectInventoryState },
    WarehouseGuard,
    { provide: OPEN_WAREHOUSES, useFactory: () => openWarehousesFrom(process.env) },
  ],
})
export class WholeObjectInventoryModule {}

function stockKey(warehouse: string, sku: string): string {
  return `${warehouse}/${sku}`;
}

function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
