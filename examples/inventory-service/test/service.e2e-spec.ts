import { type OnceClient, UnauthenticatedError } from '@once/sdk';
import { type ServiceProcess } from '@once/testing';
import { type StockLevel } from '../src/inventory/inventory.controller';
import { ORDERS, RECEIVING, connectAs, startInventoryService } from './support/inventory-harness';

/**
 * The service as it is deployed: its own `main.ts`, its users module, and
 * the process an operator starts and stops.
 */
describe('given the inventory service started from its own main', () => {
  let service: ServiceProcess;
  let receiving: OnceClient | undefined;

  beforeAll(async () => {
    service = await startInventoryService();
  });
  afterAll(async () => {
    await receiving?.close({ force: true });
    await service?.cleanup();
  });

  it('when a service presents another account password, then it gets no session', async () => {
    const connecting = connectAs({ ...ORDERS, password: RECEIVING.password }, service.port);

    await expect(connecting).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('when it is stopped with SIGTERM and started again, then it restarts from the state it stopped at and keeps every reservation and account', async () => {
    receiving = await connectAs(RECEIVING, service.port);
    const orders = await connectAs(ORDERS, service.port);
    await receiving.command('inventory.add', { warehouse: 'berlin', sku: 'bolt', quantity: 5 });
    await orders.command('inventory.reserve', {
      orderId: 'order-1',
      warehouse: 'berlin',
      sku: 'bolt',
      quantity: 2,
    });
    await orders.close({ logout: true });

    await service.stop();
    const running = service.running;
    const logsBefore = service.logs.length;
    await service.restart();

    expect(running).toBe(false);
    // The stop left the state persisted up to its last op: a snapshot written on
    // the way out, or a checkpoint that already covered the journal's end. The
    // restart restores it and has nothing to replay.
    const restart = service.logs.slice(logsBefore);
    const restored = /snapshot restored at op (\d+)/.exec(restart);
    expect(restored).not.toBeNull();
    expect(restart).toContain(`replay applied 0 entries (nothing after op ${restored![1]})`);
    await expect(
      receiving.query<StockLevel>('inventory.stock', { warehouse: 'berlin', sku: 'bolt' }),
    ).resolves.toEqual({ warehouse: 'berlin', sku: 'bolt', available: 3, reserved: 2 });
    const again = await connectAs(ORDERS, service.port);
    await again.close({ logout: true });
  });
});
