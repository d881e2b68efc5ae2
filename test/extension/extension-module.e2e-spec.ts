import { join } from 'node:path';
import { Status, randomClientId } from '@once/protocol';
import { RawClient, ServiceProcess, outcomeOf, registrationOf } from '@once/testing';

/** A team's own module (test/fixtures/inventory), in a service the harness starts. */
describe('given a service made of a team module with its own guard', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({
      modules: [
        {
          path: join(__dirname, '../fixtures/inventory/inventory.module.ts'),
          export: 'InventoryModule',
        },
      ],
      users: { alice: 'alice-pw' },
    });
  });
  afterAll(() => service.cleanup());

  it('when commands pass and fail its guard, then both are committed once and survive a crash', async () => {
    const client = randomClientId();
    const raw = await RawClient.connect(service.port);
    const { epoch, userId, resumeToken } = registrationOf(
      await raw.register(client, 'alice', 'alice-pw'),
    );
    expect(userId).toBe(1);

    const added = await raw.command(client, epoch, 1, 'inventory.add', {
      item: 'bolt',
      count: 5,
      warehouse: 'main',
    });
    expect(outcomeOf(added)).toMatchObject({ ok: true, result: { item: 'bolt', stock: 5 } });
    const refused = await raw.command(client, epoch, 2, 'inventory.add', {
      item: 'bolt',
      count: 5,
      warehouse: 'mars',
    });
    expect(refused.header.status).toBe(Status.Ok);
    expect(outcomeOf(refused)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });

    await service.crash();
    await service.restart();

    const again = await RawClient.connect(service.port);
    const retried = await again.command(
      client,
      epoch,
      2,
      'inventory.add',
      { item: 'bolt', count: 5, warehouse: 'mars' },
      resumeToken,
    );
    expect(retried.raw.equals(refused.raw)).toBe(true);
    const next = await again.command(client, epoch, 3, 'inventory.add', {
      item: 'bolt',
      count: 2,
      warehouse: 'north',
    });
    expect(outcomeOf(next)).toMatchObject({ ok: true, result: { stock: 7 } });
    const stock = await again.query(client, epoch, 'inventory.stock', { item: 'bolt' });
    expect(outcomeOf(stock)).toEqual({ ok: true, result: { stock: 7 } });
    raw.destroy();
    again.destroy();
  });

  it('when the credentials are wrong, then REGISTER is UNAUTHENTICATED', async () => {
    const raw = await RawClient.connect(service.port);
    expect((await raw.register(randomClientId(), 'alice', 'nope')).header.status).toBe(
      Status.Unauthenticated,
    );
    raw.destroy();
  });
});
