import { CommandError } from '@once/framework';

/** `inventory.add`: units arriving at a warehouse. */
export interface AddStock {
  readonly warehouse: string;
  readonly sku: string;
  readonly quantity: number;
}

/** `inventory.reserve`: units held for one order, under the order's own id. */
export interface ReserveStock extends AddStock {
  readonly orderId: string;
}

/** `inventory.stock`: which stock to read. */
export interface StockRef {
  readonly warehouse: string;
  readonly sku: string;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const ORDER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/*
 * Requests arrive as JSON from any client, so every handler checks its data
 * before it touches the state. The checks are pure: run again at replay on
 * the same journaled data, they decide the same way.
 */

export function stockRefOf(data: unknown): StockRef {
  const { warehouse, sku } = recordOf(data);
  return { warehouse: nameOf(warehouse, 'warehouse'), sku: nameOf(sku, 'sku') };
}

export function addStockOf(data: unknown): AddStock {
  return { ...stockRefOf(data), quantity: quantityOf(recordOf(data).quantity) };
}

export function reserveStockOf(data: unknown): ReserveStock {
  const { orderId } = recordOf(data);
  if (typeof orderId !== 'string' || !ORDER_ID.test(orderId)) {
    throw invalid('orderId is 1 to 128 letters, digits or . _ : -');
  }
  return { ...addStockOf(data), orderId };
}

function recordOf(data: unknown): Record<string, unknown> {
  if (typeof data !== 'object' || data === null) throw invalid('the data is a JSON object');
  return data as Record<string, unknown>;
}

function nameOf(value: unknown, field: string): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw invalid(`${field} is 1 to 64 letters, digits or . _ -`);
  }
  return value;
}

function quantityOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw invalid('quantity is a positive integer');
  }
  return value;
}

function invalid(message: string): CommandError {
  return new CommandError('INVALID_ARGUMENT', message);
}
