import { Controller, UseGuards } from '@nestjs/common';
import { type ApplyContext, Command, CommandError, Query } from '@once/framework';
import { addStockOf, reserveStockOf, stockRefOf } from './inventory.requests';
import { InventoryState } from './inventory.state';
import { WarehouseGuard } from './warehouse.guard';

/** Reply of `inventory.add`. */
export interface StockAdded {
  readonly warehouse: string;
  readonly sku: string;
  readonly available: number;
}

/** Reply of `inventory.reserve`. */
export interface StockReserved {
  readonly orderId: string;
  readonly warehouse: string;
  readonly sku: string;
  readonly quantity: number;
  /** Units left available after this reservation. */
  readonly available: number;
  /** The journal op that made the reservation: unique, and the same on every replay. */
  readonly reservation: number;
}

/** Reply of `inventory.stock`. */
export interface StockLevel {
  readonly warehouse: string;
  readonly sku: string;
  readonly available: number;
  readonly reserved: number;
}

/**
 * The inventory's commands and query.
 *
 * A `@Command` method is the apply step: once calls it exactly once per
 * request, when the request's journal entry is durable, and again for that
 * entry on every replay at boot. So it is synchronous and deterministic: it
 * reads only the state, the data and `ctx` (taken from the journal entry),
 * never a clock, a random number, the network or a setting. It checks
 * first and changes the state last, because a refusal (`CommandError`) is
 * committed like a result and nothing is rolled back. A client that retries
 * a request gets this method's first answer from the reply cache; the method
 * does not run again.
 */
@Controller()
export class InventoryController {
  constructor(private readonly inventory: InventoryState) {}

  @UseGuards(WarehouseGuard)
  @Command('inventory.add')
  add(data: unknown): StockAdded {
    const { warehouse, sku, quantity } = addStockOf(data);
    const available = this.inventory.add(warehouse, sku, quantity);
    return { warehouse, sku, available };
  }

  /**
   * Holds stock for an order. The order id makes the reservation idempotent
   * at the business level too: a retry of the same request is answered from
   * once's reply cache, and a new request that reuses an order id (the orders
   * app placed the same order twice) is refused with ORDER_ID_REUSED.
   */
  @UseGuards(WarehouseGuard)
  @Command('inventory.reserve')
  reserve(data: unknown, ctx: ApplyContext): StockReserved {
    const { orderId, warehouse, sku, quantity } = reserveStockOf(data);
    if (this.inventory.reservedUnder(orderId)) {
      throw new CommandError('ORDER_ID_REUSED', `order ${orderId} has reserved stock already`);
    }
    const available = this.inventory.availableOf(warehouse, sku);
    if (available < quantity) {
      throw new CommandError(
        'INSUFFICIENT_STOCK',
        `${quantity} of ${sku} asked at ${warehouse}, ${available} available`,
      );
    }
    const left = this.inventory.reserve(orderId, { warehouse, sku, quantity });
    return { orderId, warehouse, sku, quantity, available: left, reservation: ctx.op };
  }

  /** A read: served from the state as it is after the latest commit, never journaled. */
  @Query('inventory.stock')
  stock(data: unknown): StockLevel {
    const { warehouse, sku } = stockRefOf(data);
    return {
      warehouse,
      sku,
      available: this.inventory.availableOf(warehouse, sku),
      reserved: this.inventory.reservedOf(warehouse, sku),
    };
  }
}
