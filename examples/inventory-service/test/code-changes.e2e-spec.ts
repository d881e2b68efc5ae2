import { type OnceClient } from '@once/sdk';
import { RawClient, type ServiceProcess, eventually, outcomeOf } from '@once/testing';
import { type StockLevel } from '../src/inventory/inventory.controller';
import { type AuditNote, type AuditNotes } from './support/audit.module';
import {
  AUDIT,
  DataDirectory,
  INVENTORY,
  INVENTORY_LIMIT_UNBUMPED,
  INVENTORY_V2,
  type ReplyFrame,
  type WireSession,
  deploy,
  openWireSession,
  refusedDeployment,
  sendCommand,
} from './support/deployments';
import { ORDERS, RECEIVING, connectAs, freshSku } from './support/inventory-harness';
import { ORDER_LIMIT } from './support/inventory-v2.module';

/**
 * How the team tries a change of its code before deploying it: the service
 * runs the code of today on a data directory, then the release starts on
 * that same directory, as it would on production's. once keeps requests,
 * not results: every boot applies the journal after the newest snapshot with
 * the code that runs now, so a release that could not rebuild what was
 * acknowledged must be refused before it serves. See the guide "Changing
 * your code" (docs/guides/changing-your-code.md in the once repository).
 */

/** A snapshot every 10 ops, and only the newest one's history kept: the journal is compacted behind it. */
const RETENTION = { ONCE_SNAPSHOT_EVERY_OPS: '10', ONCE_JOURNAL_RETAIN: '1' };

describe('given the inventory deployed with a snapshot every 10 ops and the journal compacted behind it', () => {
  const directory = new DataDirectory();
  const sku = freshSku();
  const orders = 24;
  let service: ServiceProcess | undefined;
  beforeAll(async () => {
    await directory.create();
  });
  afterAll(async () => {
    await service?.cleanup();
    await directory.remove();
  });

  const stockOf = (client: OnceClient) =>
    client.query<StockLevel>('inventory.stock', { warehouse: 'berlin', sku });

  it('when 25 commands commit, it stops gracefully and the release adds the audit module, then it boots from the snapshot: the inventory is intact and audit starts empty', async () => {
    // Given 30 units received and 24 orders of one, acknowledged
    service = await deploy([INVENTORY], directory.path, RETENTION);
    const receiving = await connectAs(RECEIVING, service.port);
    const ordering = await connectAs(ORDERS, service.port);
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 30 });
    for (let order = 1; order <= orders; order++) {
      await ordering.command('inventory.reserve', {
        orderId: `order-${sku}-${order}`,
        warehouse: 'berlin',
        sku,
        quantity: 1,
      });
    }
    await eventually(
      () => /journal compacted: .* it starts at op [1-9]\d*/.test(service?.logs ?? ''),
      'the journal compacted behind a snapshot',
    );
    await receiving.close({ logout: true });
    await ordering.close({ logout: true });

    // When it stops gracefully and the release [inventory, audit] starts on the same directory
    expect(await service.stop()).toBe(0);
    service = await deploy([INVENTORY, AUDIT], directory.path, RETENTION);

    // Then it restored a snapshot (the ops before it are gone) rather than replay from op 1,
    // and journaled the new code in force: a MANIFEST entry that adds the state audit
    expect(service.logs).toMatch(/snapshot restored at op \d+ .*earlier ops were compacted/);
    expect(service.logs).not.toMatch(/replaying the journal from op 1\b/);
    expect(service.logs).toMatch(/journaled MANIFEST at op \d+ .*\baudit added\b/);
    const auditor = await connectAs(RECEIVING, service.port);
    try {
      // And the inventory is as acknowledged, and the audit trail starts empty
      expect(await stockOf(auditor)).toEqual({
        warehouse: 'berlin',
        sku,
        available: 30 - orders,
        reserved: orders,
      });
      expect(await auditor.query<AuditNotes>('audit.notes', {})).toEqual({ notes: [] });

      // And the new module's commands work next to the old ones
      const note = await auditor.command<AuditNote>('audit.record', { note: 'stock counted' });
      expect(await auditor.query<AuditNotes>('audit.notes', {})).toEqual({ notes: [note] });
      await auditor.command('inventory.add', { warehouse: 'berlin', sku, quantity: 4 });
      expect(await stockOf(auditor)).toMatchObject({ available: 34 - orders, reserved: orders });
    } finally {
      await auditor.close({ logout: true });
    }
  }, 90_000);

  it('when the next release leaves the audit module out, then it refuses to boot: it exits naming STATE_NOT_PROVIDED and "audit"', async () => {
    expect(await service?.stop()).toBe(0);
    service = undefined;

    const refusal = await refusedDeployment([INVENTORY], directory.path, RETENTION);

    expect(refusal).toMatch(/STATE_NOT_PROVIDED/);
    expect(refusal).toMatch(/"audit"/);
    // It says how to remove the module on purpose
    expect(refusal).toMatch(/ONCE_RETIRED_STATES=audit/);
  }, 60_000);

  it('when that release retires the state (ONCE_RETIRED_STATES=audit), then it boots with the inventory intact', async () => {
    service = await deploy([INVENTORY], directory.path, {
      ...RETENTION,
      ONCE_RETIRED_STATES: 'audit',
    });

    const receiving = await connectAs(RECEIVING, service.port);
    try {
      expect(await stockOf(receiving)).toMatchObject({ available: 34 - orders, reserved: orders });
    } finally {
      await receiving.close({ logout: true });
    }
  }, 60_000);
});

/**
 * The release limits what an order may reserve to ORDER_LIMIT units; the
 * reservation of order 1 (above it) was accepted and acknowledged before.
 */
describe(`given two reservations acknowledged under the inventory's version 1, one of ${ORDER_LIMIT + 3} units, then SIGKILL`, () => {
  const directory = new DataDirectory();
  const sku = freshSku();
  const place = (orderId: string, quantity: number) => ({
    orderId: `${orderId}-${sku}`,
    warehouse: 'berlin',
    sku,
    quantity,
  });
  let service: ServiceProcess | undefined;
  /** The orders app's session, kept across deployments: it resends by request number. */
  let session: WireSession;
  /** The reply of request 1 (8 units), the first the new rule would refuse. */
  let overLimit: ReplyFrame;
  /** The reply of request 2 (3 units), the last one acknowledged. */
  let lastAcknowledged: ReplyFrame;

  beforeAll(async () => {
    await directory.create();
    service = await deploy([INVENTORY], directory.path);
    const receiving = await connectAs(RECEIVING, service.port);
    await receiving.command('inventory.add', { warehouse: 'berlin', sku, quantity: 20 });
    await receiving.close({ logout: true });
    const wire = await openWireSession(ORDERS, service.port);
    session = wire.session;
    try {
      overLimit = await sendCommand(wire.raw, session, 1, 'inventory.reserve', place('order-1', 8));
      lastAcknowledged = await sendCommand(
        wire.raw,
        session,
        2,
        'inventory.reserve',
        place('order-2', 3),
      );
    } finally {
      wire.raw.destroy();
    }
    expect(outcomeOf(overLimit)).toMatchObject({ ok: true, result: { available: 12 } });
    expect(outcomeOf(lastAcknowledged)).toMatchObject({ ok: true, result: { available: 9 } });
    await service.crash();
    service = undefined;
  }, 60_000);
  afterAll(async () => {
    await service?.cleanup();
    await directory.remove();
  });

  it('when the release changes the reservation rule without a version bump, then it refuses to boot: it exits naming NONDETERMINISTIC_APPLY, the op of order 1 and inventory.reserve', async () => {
    const refusal = await refusedDeployment([INVENTORY_LIMIT_UNBUMPED], directory.path);

    expect(refusal).toMatch(/NONDETERMINISTIC_APPLY/);
    expect(refusal).toMatch(new RegExp(`\\bop ${overLimit.header.op}\\b`));
    expect(refusal).toContain('inventory.reserve');
    expect(refusal).toMatch(/"inventory" at version 1/);
    // The reply the changed code computes now: the new rule's refusal
    expect(refusal).toContain('ORDER_LIMIT_EXCEEDED');
  }, 60_000);

  it('when the release bumps the inventory to version 2 and branches on ctx.version, then old reservations keep their replies and new ones follow the limit', async () => {
    service = await deploy([INVENTORY_V2], directory.path);

    // The boot replayed the old entries under version 1, then journaled version 2
    expect(service.logs).toMatch(/journaled MANIFEST at op \d+ .*\binventory v1 → v2\b/);
    let raw: RawClient | undefined;
    try {
      // The retry of the last acknowledged request gets its first reply, byte for byte
      // (a new connection: the request carries the session's resume token, as the SDK's resend does)
      raw = await RawClient.connect(service.port);
      expect(
        (await sendCommand(raw, session, 2, 'inventory.reserve', place('order-2', 3))).raw,
      ).toEqual(lastAcknowledged.raw);

      // A new order above the limit is refused; one within it is reserved
      const tooMany = await sendCommand(raw, session, 3, 'inventory.reserve', place('order-3', 6));
      expect(outcomeOf(tooMany)).toMatchObject({
        ok: false,
        error: { code: 'ORDER_LIMIT_EXCEEDED' },
      });
      const within = await sendCommand(raw, session, 4, 'inventory.reserve', place('order-4', 5));
      expect(outcomeOf(within)).toMatchObject({ ok: true, result: { available: 4 } });
    } finally {
      raw?.destroy();
    }
    // And order 1's 8 units are still held, as acknowledged
    const receiving = await connectAs(RECEIVING, service.port);
    try {
      await expect(
        receiving.query<StockLevel>('inventory.stock', { warehouse: 'berlin', sku }),
      ).resolves.toEqual({ warehouse: 'berlin', sku, available: 4, reserved: 16 });
    } finally {
      await receiving.close({ logout: true });
    }
  }, 60_000);

  it('when the version-1 code is deployed again after it, then it refuses to boot: it exits naming MODULE_VERSION_UNSUPPORTED, the module inventory and both versions', async () => {
    expect(await service?.stop()).toBe(0);
    service = undefined;

    const refusal = await refusedDeployment([INVENTORY], directory.path);

    expect(refusal).toMatch(/MODULE_VERSION_UNSUPPORTED/);
    expect(refusal).toMatch(/module "inventory" at version 2\b.*\bprovides version 1\b/);
  }, 60_000);
});
