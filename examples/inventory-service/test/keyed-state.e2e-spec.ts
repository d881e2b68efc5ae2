import { CommandRefusedError, type OnceClient } from '@once/sdk';
import { type ServiceProcess, eventually } from '@once/testing';
import { type StockLevel, type StockReserved } from '../src/inventory/inventory.controller';
import { DataDirectory, INVENTORY, INVENTORY_WHOLE_OBJECT, deploy } from './support/deployments';
import { ORDERS, RECEIVING, connectAs, freshSku } from './support/inventory-harness';

/**
 * The inventory keeps its stock and reservations as keyed records
 * (src/inventory/inventory.state.ts). The release before kept them in a
 * whole-object state, written whole into every snapshot. Production's data
 * directory holds snapshots of that shape, and with retention the journal
 * before the newest of them is gone: the keyed release must take its
 * picture (`importSnapshot`) rather than replay, and answer as the old
 * release would have.
 */

/** A snapshot every 10 ops, and only the newest one's history kept: the journal is compacted behind it. */
const RETENTION = { ONCE_SNAPSHOT_EVERY_OPS: '10', ONCE_JOURNAL_RETAIN: '1' };

/** The first op the journal of `service` keeps, from its latest compaction (0: none yet). */
function compactedTo(logs: string): number {
  const starts = [...logs.matchAll(/journal compacted: .* it starts at op (\d+)/g)];
  return starts.length === 0 ? 0 : Number(starts[starts.length - 1][1]);
}

describe('given the inventory of the release before keyed state, with a snapshot every 10 ops and the journal compacted behind it', () => {
  const directory = new DataDirectory();
  const sku = freshSku();
  const other = freshSku();
  const orders = 12;
  const orderId = (order: number) => `order-${sku}-${order}`;
  let service: ServiceProcess | undefined;
  beforeAll(async () => {
    await directory.create();
  });
  afterAll(async () => {
    await service?.cleanup();
    await directory.remove();
  });

  const stockOf = (client: OnceClient, warehouse: string, ofSku: string) =>
    client.query<StockLevel>('inventory.stock', { warehouse, sku: ofSku });
  const reserve = (client: OnceClient, order: number, quantity: number) =>
    client.command<StockReserved>('inventory.reserve', {
      orderId: orderId(order),
      warehouse: 'berlin',
      sku,
      quantity,
    });

  it('when the keyed release starts on its directory after a graceful stop, then it restores the whole-object snapshot as records: stock, reserved totals and order ids are as acknowledged', async () => {
    // Given stock at two warehouses and 12 orders of two units, acknowledged by the whole-object release
    service = await deploy([INVENTORY_WHOLE_OBJECT], directory.path, RETENTION);
    const receiving = await connectAs(RECEIVING, service.port);
    const ordering = await connectAs(ORDERS, service.port);
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 40 });
    await receiving.command('inventory.add', { warehouse: 'lyon', sku: other, quantity: 7 });
    for (let order = 1; order <= orders; order++) await reserve(ordering, order, 2);
    await eventually(
      () => compactedTo(service?.logs ?? '') > 1,
      'the journal compacted behind a snapshot',
    );
    await receiving.close({ logout: true });
    await ordering.close({ logout: true });

    // When it stops gracefully and the keyed release starts on the same directory
    expect(await service.stop()).toBe(0);
    service = await deploy([INVENTORY], directory.path, RETENTION);

    // Then it restored the old release's snapshot (the ops before it are gone), not a replay
    expect(service.logs).toMatch(/snapshot restored at op \d+ .*earlier ops were compacted/);
    expect(service.logs).not.toMatch(/replaying the journal from op 1\b/);
    const client = await connectAs(ORDERS, service.port);
    try {
      // And the stock and the reserved totals (derived by the old release, records now) are as acknowledged
      expect(await stockOf(client, 'berlin', sku)).toEqual({
        warehouse: 'berlin',
        sku,
        available: 40 - 2 * orders,
        reserved: 2 * orders,
      });
      expect(await stockOf(client, 'lyon', other)).toEqual({
        warehouse: 'lyon',
        sku: other,
        available: 7,
        reserved: 0,
      });

      // And an order id the old release took is still taken
      const again = reserve(client, 3, 1);
      await expect(again).rejects.toBeInstanceOf(CommandRefusedError);
      await expect(again).rejects.toMatchObject({ code: 'ORDER_ID_REUSED' });

      // And new reservations take from the same stock
      const reserved = await reserve(client, orders + 1, 5);
      expect(reserved).toMatchObject({ available: 40 - 2 * orders - 5, quantity: 5 });
      const tooMany = reserve(client, orders + 2, 40);
      await expect(tooMany).rejects.toMatchObject({ code: 'INSUFFICIENT_STOCK' });
    } finally {
      await client.close({ logout: true });
    }
  }, 90_000);

  it('when it commits past its next snapshot and is SIGKILLed, then it boots from its own keyed snapshot and the journal after it, with every acknowledged change', async () => {
    const running = service!;
    const restoredAt = Number(/snapshot restored at op (\d+)/.exec(running.logs)?.[1]);
    const receiving = await connectAs(RECEIVING, running.port);
    const ordering = await connectAs(ORDERS, running.port);
    // Given enough commands for the keyed release's own snapshots, and the journal compacted
    // behind one of them, so the whole-object snapshot can no longer be used
    for (let batch = 0; batch < 12; batch++) {
      await receiving.command('inventory.add', { warehouse: 'lyon', sku: other, quantity: 1 });
    }
    await eventually(
      () => compactedTo(running.logs) > restoredAt + 1,
      'the journal compacted behind a snapshot of the keyed release',
    );
    // And a reservation after it, in the journal only
    const last = await reserve(ordering, orders + 3, 1);
    await receiving.close();
    await ordering.close();

    // When it is SIGKILLed and started again on the same directory
    const before = running.logs.length;
    await running.restart();

    // Then it restored a snapshot the keyed release wrote (the old one's ops are compacted)
    const boot = running.logs.slice(before);
    const restoredNow = Number(/snapshot restored at op (\d+)/.exec(boot)?.[1]);
    expect(restoredNow).toBeGreaterThan(restoredAt);
    expect(boot).not.toMatch(/replaying the journal from op 1\b/);
    expect(boot).not.toMatch(/KEYED_STATE_BEHIND|does not restore/);
    const client = await connectAs(RECEIVING, running.port);
    try {
      // And every acknowledged change is there
      expect(await stockOf(client, 'berlin', sku)).toEqual({
        warehouse: 'berlin',
        sku,
        available: last.available,
        reserved: 2 * orders + 5 + 1,
      });
      expect(await stockOf(client, 'lyon', other)).toMatchObject({ available: 7 + 12 });
      await expect(reserve(client, 1, 1)).rejects.toMatchObject({ code: 'ORDER_ID_REUSED' });
    } finally {
      await client.close({ logout: true });
    }
  }, 90_000);
});
