import { connect } from 'node:net';
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
      expect(service.logs).toMatch(/snapshot at op \d+ (written|is current)/);
      expect(service.running).toBe(false);

      // And a restart starts from that snapshot with every committed command in it
      await service.restart();
      expect(service.logs).toMatch(/snapshot restored at op \d+/);
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

    it(`when ${signal} arrives while a client keeps sending, then the connection still closes and the stop completes`, async () => {
      // Given a session whose client writes a query every few milliseconds, throughout the stop
      await service.restart();
      const client = randomClientId();
      const raw = await RawClient.connect(service.port);
      const { epoch } = registrationOf(await raw.register(client, 'alice', TALLY_USERS.alice));
      const writer = setInterval(() => {
        if (raw.closed) return;
        raw.send(
          { operation: Operation.Query, client, session: epoch, request: 0 },
          JSON.stringify({ pattern: 'tally.get', data: { name: signal } }),
        );
      }, 2);

      // When the signal arrives
      const logsBefore = service.logs.length;
      const code = await service.stop(15_000, signal);
      clearInterval(writer);

      // Then the shutdown hooks ran to their end (NestJS re-raised the signal; no SIGKILL) and the connection closed
      expect(service.logs.slice(logsBefore)).toMatch(
        /stopping[^]*snapshot at op \d+ (written|is current)/,
      );
      expect(code).toBeNull();
      expect(service.exitSignal).toBe(signal);
      await raw.whenClosed();
    });

    it(`when ${signal} arrives while a peer never closes its side of the connection, then the stop still completes`, async () => {
      // Given a connection whose peer keeps its side open after the node's FIN
      await service.restart();
      const peer = connect({ port: service.port, host: '127.0.0.1', allowHalfOpen: true });
      await new Promise((resolve) => peer.once('connect', resolve));
      const peerGotFin = new Promise((resolve) => peer.once('end', resolve));

      // When the signal arrives
      const logsBefore = service.logs.length;
      const code = await service.stop(15_000, signal);

      // Then the node ended the connection and its shutdown hooks ran to their end:
      // NestJS re-raised the signal (a hung stop would have ended by SIGKILL)
      expect(service.logs.slice(logsBefore)).toMatch(`${signal}: stopping`);
      expect(code).toBeNull();
      expect(service.exitSignal).toBe(signal);
      await peerGotFin;
      peer.destroy();
    });
  },
);
