import { type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type OnceClient } from '@once/sdk';
import { type ServiceProcess, TcpProxy, eventually } from '@once/testing';
import { OrdersModule } from '../src/caller/orders.module';
import { type Order, OrdersService } from '../src/caller/orders.service';
import {
  ORDERS,
  RECEIVING,
  connectAs,
  freshSku,
  startInventoryService,
} from './support/inventory-harness';

/**
 * The orders app, a NestJS application of another team, calls the inventory
 * through an injected `ClientProxy` (`OnceClientProxy`). It reaches the
 * service through a proxy that can hold replies, so the service can be
 * SIGKILLed after committing a reservation and before the app hears of it.
 */
describe('given the orders app calling the inventory through OnceClientProxy', () => {
  let service: ServiceProcess;
  let proxy: TcpProxy;
  let receiving: OnceClient;
  let app: INestApplicationContext;
  let orders: OrdersService;
  const sku = freshSku();
  const orderOf = (orderId: string, quantity: number): Order => ({
    orderId,
    warehouse: 'berlin',
    sku,
    quantity,
  });

  beforeAll(async () => {
    service = await startInventoryService();
    proxy = await TcpProxy.start({ targetPort: service.port });
    receiving = await connectAs(RECEIVING, service.port);
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 10 });
    app = await NestFactory.createApplicationContext(
      OrdersModule.forRoot({
        port: proxy.port,
        username: ORDERS.username,
        password: ORDERS.password,
        reconnect: { initialDelayMs: 10, delayMsMax: 200 },
      }),
      { logger: false },
    );
    orders = app.get(OrdersService);
  });
  afterAll(async () => {
    await app?.close();
    await receiving?.close({ force: true });
    await proxy?.close();
    await service?.cleanup();
  });

  it('when an order is placed, then its stock is reserved; when one asks for more than is left, then it is backordered', async () => {
    const placed = await orders.place(orderOf('order-1', 2));
    const tooBig = await orders.place(orderOf('order-2', 50));

    expect(placed).toMatchObject({ orderId: 'order-1', status: 'reserved' });
    expect(tooBig).toMatchObject({ orderId: 'order-2', status: 'backordered' });
    expect(await orders.available('berlin', sku)).toBe(8);
  });

  it('when the inventory is SIGKILLed before the reply reaches the app, then the order is reserved exactly once', async () => {
    proxy.setMode('toClient', 'hold');
    const placing = orders.place(orderOf('order-3', 3));
    await eventually(() => proxy.heldBytes('toClient') > 0, 'the reservation committed');

    await service.crash();
    proxy.cut();
    proxy.setMode('toClient', 'forward');
    await service.restart();

    await expect(placing).resolves.toMatchObject({ orderId: 'order-3', status: 'reserved' });
    expect(await orders.available('berlin', sku)).toBe(5);
  });

  it('when the app places an order it already placed, then the inventory refuses it ORDER_ID_REUSED', async () => {
    const placing = orders.place(orderOf('order-3', 3));

    await expect(placing).rejects.toMatchObject({ code: 'ORDER_ID_REUSED' });
    expect(await orders.available('berlin', sku)).toBe(5);
  });
});
