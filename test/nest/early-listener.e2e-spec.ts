import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Operation, Status, randomClientId } from '@once/protocol';
import { RawClient, bodyJson, outcomeOf, registrationOf } from '@once/testing';
import { commandBody, expectAnswerTo, requestBytes } from '../support/wire';
import { EARLY_LISTENER_USERS, EarlyListenerProcess } from './support/early-listener';

/**
 * PROTOCOL.md: NOT_READY is "node still replaying or shutting down: retry the
 * same frame later". A hybrid app that starts its microservices before it
 * initialises (the order of the NestJS docs) has its once listener open
 * while the data directory is not open yet: every request but PING must be
 * answered NOT_READY then, and the app must live on to serve them later.
 */
describe('given a hybrid app whose once listener opened before module init (startAllMicroservices() before listen())', () => {
  let root: string;
  let app: EarlyListenerProcess;
  let port: number;
  let raw: RawClient;
  const client = randomClientId();
  const register = requestBytes(
    { operation: Operation.Register, client },
    JSON.stringify({ username: 'alice', password: EARLY_LISTENER_USERS.alice }),
  );
  const order = { item: 'Bolt', quantity: 1, tenant: 'acme' };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-early-listener-'));
    ({ app, port } = await EarlyListenerProcess.start(join(root, 'data')));
    raw = await RawClient.connect(port);
  }, 120_000);
  afterAll(async () => {
    raw?.destroy();
    await app?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  describe('when a client sends requests before the app initialised', () => {
    it('then PING says not ready', async () => {
      const ping = await raw.ping();
      expect(bodyJson(ping)).toEqual({
        version: 1,
        commit: 0,
        ready: false,
        node: null,
        role: 'none',
        leader: null,
      });
    });

    it.each([
      ['a REGISTER', () => register],
      [
        'a COMMAND (with a session and resume token the node cannot check yet)',
        () =>
          requestBytes(
            {
              operation: Operation.Command,
              client,
              session: 1,
              request: 1,
              resumeToken: Buffer.alloc(16, 7),
            },
            commandBody('orders.place', order),
          ),
      ],
      [
        'a QUERY',
        () =>
          requestBytes(
            { operation: Operation.Query, client, session: 1 },
            commandBody('orders.all', {}),
          ),
      ],
    ])('then %s is answered NOT_READY and the app keeps running', async (what, bytes) => {
      const request = bytes();
      raw.write(request);
      const answer = await app.answer(raw, what);
      expectAnswerTo(answer, request, { command: Command.Reply, status: Status.NotReady });
      expect(outcomeOf(answer)).toMatchObject({ ok: false, error: { code: 'NOT_READY' } });
      expect({ running: app.running, log: app.describe() }).toMatchObject({ running: true });
    });
  });

  describe('when the app then initialises', () => {
    beforeAll(async () => {
      if (!app.running)
        throw new Error(`the app did not survive the early requests: ${app.describe()}`);
      await app.init();
    });

    it('then the same connection registers, commits and reads', async () => {
      raw.write(register);
      const registered = await app.answer(raw, 'the REGISTER after init');
      expectAnswerTo(registered, register, {
        command: Command.Reply,
        status: Status.Ok,
        session: registrationOf(registered).epoch,
        replicated: true,
      });
      const { epoch } = registrationOf(registered);

      const placed = await raw.command(client, epoch, 1, 'orders.place', order);
      expect(placed.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
      expect(outcomeOf(placed)).toMatchObject({ ok: true, result: { item: 'bolt', placedBy: 1 } });

      const all = await raw.query(client, epoch, 'orders.all', {});
      expect(outcomeOf(all)).toMatchObject({ ok: true, result: [{ item: 'bolt', quantity: 1 }] });
    });
  });
});
