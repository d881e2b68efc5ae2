import { join } from 'node:path';
import { Operation, Status, randomClientId } from '@once/protocol';
import { RawClient, ServiceProcess, outcomeOf, registrationOf } from '@once/testing';
import { TALLY_USERS } from '../fixtures/minimal-main/tally.module';
import { expectCommittedThenNotReady } from '../support/wire';

const TALLY_SERVICE = join(__dirname, '../fixtures/minimal-main/tally-service.main.ts');

/**
 * A team's minimal main (createMicroservice, enableShutdownHooks, listen) has
 * no signal handling of its own: the framework's shutdown hooks must finish
 * what is in flight, write a snapshot and close the journal.
 */
describe.each(['SIGTERM', 'SIGINT'] as const)(
  'given a service whose main only calls app.enableShutdownHooks()',
  (signal) => {
    let service: ServiceProcess;
    beforeAll(async () => {
      service = await ServiceProcess.start({ entry: TALLY_SERVICE });
    });
    afterAll(() => service.cleanup());

    it(`when ${signal} arrives with commands in flight, then each is answered, a snapshot is written and a restart has them all`, async () => {
      // Given a session with eight pipelined commands in flight
      const client = randomClientId();
      const raw = await RawClient.connect(service.port);
      const { epoch } = registrationOf(await raw.register(client, 'alice', TALLY_USERS.alice));
      for (let request = 1; request <= 8; request++) {
        raw.send(
          { operation: Operation.Command, client, session: epoch, request },
          JSON.stringify({ pattern: 'tally.add', data: { name: signal } }),
        );
      }
      const first = await raw.next();
      expect(first.header.status).toBe(Status.Ok);

      // When the signal arrives
      const exited = service.stop(20_000, signal);
      const answered = [first];
      for (;;) {
        const frame = await raw.next(10_000).catch(() => undefined);
        if (!frame) break;
        answered.push(frame);
      }
      await exited;

      // Then every request was answered in order: committed ones OK, the rest NOT_READY
      const committed = expectCommittedThenNotReady(answered, [1, 2, 3, 4, 5, 6, 7, 8]);
      expect(service.logs).toMatch(/snapshot at op \d+ written/);
      expect(service.running).toBe(false);

      // And a restart starts from that snapshot with every committed command in it
      await service.restart();
      expect(service.logs).toMatch(/restored snapshot at op \d+/);
      const again = await RawClient.connect(service.port);
      const resumed = registrationOf(await again.register(client, 'alice', TALLY_USERS.alice));
      expect(resumed.watermark).toBe(committed);
      const tally = outcomeOf(
        await again.query(client, resumed.epoch, 'tally.get', { name: signal }),
      );
      expect(tally).toEqual({ ok: true, result: { count: committed } });
      raw.destroy();
      again.destroy();
    });
  },
);
