import { CommandRefusedError, type OnceClient } from '@once/sdk';
import { type ServiceProcess, TcpProxy, eventually } from '@once/testing';
import { type StockLevel, type StockReserved } from '../src/inventory/inventory.controller';
import {
  ORDERS,
  RECEIVING,
  connectAs,
  freshSku,
  startInventoryModule,
} from './support/inventory-harness';

/**
 * The inventory module as its callers see it, served by a service that
 * @once/testing assembles around it: real TCP, a real journal in a
 * temporary directory, crashes that are real SIGKILLs. Each scenario works
 * on a SKU of its own.
 */
describe('given the inventory module in a service, and its two callers', () => {
  let service: ServiceProcess;
  let receiving: OnceClient;
  let orders: OnceClient;

  beforeAll(async () => {
    service = await startInventoryModule();
    receiving = await connectAs(RECEIVING, service.port);
    orders = await connectAs(ORDERS, service.port);
  });
  afterAll(async () => {
    await receiving?.close({ force: true });
    await orders?.close({ force: true });
    await service?.cleanup();
  });

  const stockOf = (sku: string, warehouse = 'berlin') =>
    orders.query<StockLevel>('inventory.stock', { warehouse, sku });

  it('when stock arrives and an order reserves part of it, then the stock shows what is left and what is held', async () => {
    const sku = freshSku();
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 10 });

    const reserved = await orders.command<StockReserved>('inventory.reserve', {
      orderId: `order-${sku}`,
      warehouse: 'berlin',
      sku,
      quantity: 4,
    });

    expect(reserved).toMatchObject({ orderId: `order-${sku}`, quantity: 4, available: 6 });
    expect(await stockOf(sku)).toEqual({ warehouse: 'berlin', sku, available: 6, reserved: 4 });
  });

  it('when an order asks for more than is available, then it is refused INSUFFICIENT_STOCK and nothing is held', async () => {
    const sku = freshSku();
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 2 });

    const asking = orders.command('inventory.reserve', {
      orderId: `order-${sku}`,
      warehouse: 'berlin',
      sku,
      quantity: 3,
    });

    await expect(asking).rejects.toBeInstanceOf(CommandRefusedError);
    await expect(asking).rejects.toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    expect(await stockOf(sku)).toMatchObject({ available: 2, reserved: 0 });
  });

  it('when a new request reuses an order id, then it is refused ORDER_ID_REUSED and the stock is held once', async () => {
    const sku = freshSku();
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 10 });
    const order = { orderId: `order-${sku}`, warehouse: 'berlin', sku, quantity: 3 };
    await orders.command('inventory.reserve', order);

    const again = orders.command('inventory.reserve', order);

    await expect(again).rejects.toMatchObject({
      name: 'CommandRefusedError',
      code: 'ORDER_ID_REUSED',
    });
    expect(await stockOf(sku)).toMatchObject({ available: 7, reserved: 3 });
  });

  it('when work names a warehouse the service does not serve, then its guard refuses it WAREHOUSE_CLOSED', async () => {
    const sku = freshSku();

    const adding = receiving.command('inventory.add', { warehouse: 'madrid', sku, quantity: 5 });

    await expect(adding).rejects.toMatchObject({
      name: 'CommandRefusedError',
      code: 'WAREHOUSE_CLOSED',
    });
    expect(await stockOf(sku, 'madrid')).toMatchObject({ available: 0 });
  });

  it('when lyon closes and the service restarts, then what lyon held is replayed as it was and new work there is refused', async () => {
    const sku = freshSku();
    await receiving.command('inventory.add', { warehouse: 'lyon', sku, quantity: 4 });
    await orders.command('inventory.reserve', {
      orderId: `order-${sku}`,
      warehouse: 'lyon',
      sku,
      quantity: 1,
    });

    await service.restart({ INVENTORY_WAREHOUSES: 'berlin' });

    // Replay applies the journaled commands; it never asks the guard again.
    expect(await stockOf(sku, 'lyon')).toMatchObject({ available: 3, reserved: 1 });
    await expect(
      receiving.command('inventory.add', { warehouse: 'lyon', sku, quantity: 1 }),
    ).rejects.toMatchObject({ code: 'WAREHOUSE_CLOSED' });
    await service.restart(); // back to berlin and lyon for whatever runs next
  });
});

/**
 * Crashes at exact points: the orders app reaches the service through a
 * proxy that can hold the replies, so a reservation can be committed by the
 * service while its reply has not reached the caller, and then the service
 * is SIGKILLed.
 */
describe('given the inventory module in a service SIGKILLed while reservations are in flight', () => {
  let service: ServiceProcess;
  let proxy: TcpProxy;
  let receiving: OnceClient;

  beforeAll(async () => {
    service = await startInventoryModule();
    proxy = await TcpProxy.start({ targetPort: service.port });
    receiving = await connectAs(RECEIVING, service.port);
  });
  afterAll(async () => {
    await receiving?.close({ force: true });
    await proxy?.close();
    await service?.cleanup();
  });

  /** SIGKILLs the service; what the proxy holds is lost with the connections; starts it again. */
  async function crashAndRestart(): Promise<void> {
    await service.crash();
    proxy.cut();
    proxy.setMode('toClient', 'forward');
    await service.restart();
  }

  it('when the reply of a committed reservation is lost in the crash, then the client retry is settled once', async () => {
    const sku = freshSku();
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 10 });
    const orders = await connectAs(ORDERS, proxy.port);

    proxy.setMode('toClient', 'hold');
    const reserving = orders.command<StockReserved>('inventory.reserve', {
      orderId: `order-${sku}`,
      warehouse: 'berlin',
      sku,
      quantity: 3,
    });
    await eventually(() => proxy.heldBytes('toClient') > 0, 'the reservation committed');
    await crashAndRestart();

    await expect(reserving).resolves.toMatchObject({ available: 7 });
    await expect(
      orders.query<StockLevel>('inventory.stock', { warehouse: 'berlin', sku }),
    ).resolves.toMatchObject({ available: 7, reserved: 3 });
    await orders.close();
  });

  it('when pipelined reservations are cut by the crash, then after the restart each one is applied exactly once', async () => {
    const total = 40;
    const inFlight = 8;
    const sku = freshSku();
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 100 });
    const orders = await connectAs(ORDERS, proxy.port, { inFlightMax: inFlight });

    let settled = 0;
    const reservations = Array.from({ length: total }, (_, index) =>
      orders
        .command<StockReserved>('inventory.reserve', {
          orderId: `order-${sku}-${index}`,
          warehouse: 'berlin',
          sku,
          quantity: 1,
        })
        .finally(() => settled++),
    );
    await eventually(() => settled >= 10, 'ten reservations acknowledged');
    proxy.setMode('toClient', 'hold');
    const unanswered = () => orders.identity.nextRequest - 1 - settled;
    await eventually(() => unanswered() === inFlight, `${inFlight} reservations unanswered`);
    const cutAt = { settled, unanswered: unanswered() };
    await crashAndRestart();
    const replies = await Promise.all(reservations);

    expect(cutAt.unanswered).toBe(inFlight);
    expect(cutAt.settled).toBeLessThan(total);
    // One unit each, applied once and in order: the k-th leaves 100 - k.
    expect(replies.map((reply) => reply.available)).toEqual(
      Array.from({ length: total }, (_, index) => 99 - index),
    );
    expect(new Set(replies.map((reply) => reply.reservation)).size).toBe(total);
    await expect(
      orders.query<StockLevel>('inventory.stock', { warehouse: 'berlin', sku }),
    ).resolves.toMatchObject({ available: 100 - total, reserved: total });
    await orders.close();
  });
});
