import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { CommandRefusedError } from '@once/sdk';
import { firstValueFrom } from 'rxjs';

/** Injection token of the inventory client. */
export const INVENTORY = 'INVENTORY';

/** An order to place: `quantity` units of `sku` from `warehouse`. */
export interface Order {
  readonly orderId: string;
  readonly warehouse: string;
  readonly sku: string;
  readonly quantity: number;
}

/** What became of an order. */
export type PlacedOrder =
  | { readonly orderId: string; readonly status: 'reserved'; readonly reservation: number }
  | { readonly orderId: string; readonly status: 'backordered'; readonly reason: string };

/**
 * Places orders by reserving their stock in the inventory service.
 *
 * `send` is exactly once: if the connection drops or the inventory service
 * crashes before the reply arrives, the client reconnects, resumes its
 * session and sends the reservation again under the same request number,
 * and the inventory answers it from its reply cache if it had applied it.
 * So this code never retries by hand, and never sees a duplicate.
 */
@Injectable()
export class OrdersService {
  constructor(@Inject(INVENTORY) private readonly inventory: ClientProxy) {}

  async place(order: Order): Promise<PlacedOrder> {
    try {
      const reserved = await firstValueFrom(
        this.inventory.send<{ reservation: number }>('inventory.reserve', order),
      );
      return { orderId: order.orderId, status: 'reserved', reservation: reserved.reservation };
    } catch (error) {
      // A refusal is a committed answer, with the inventory's own code.
      if (error instanceof CommandRefusedError && error.code === 'INSUFFICIENT_STOCK') {
        return { orderId: order.orderId, status: 'backordered', reason: error.message };
      }
      throw error;
    }
  }

  /** Units available at `warehouse` (a query: read from the inventory's current state). */
  async available(warehouse: string, sku: string): Promise<number> {
    const level = await firstValueFrom(
      this.inventory.send<{ available: number }>('inventory.stock', { warehouse, sku }),
    );
    return level.available;
  }
}
