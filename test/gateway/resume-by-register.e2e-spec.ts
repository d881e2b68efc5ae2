import { Command, EvictionReason, Operation, Status, randomClientId } from '@once/protocol';
import { encodeFrame } from '@once/protocol/internal';
import { RawClient, type ServiceProcess, outcomeOf, registrationOf } from '@once/testing';
import {
  ADMIN_PASSWORD,
  type Session,
  commandOk,
  queryResult,
  registerOk,
  startService,
} from '../support/sessions';

/**
 * The seed's crash scenarios, resumed by an explicit REGISTER of the same
 * client id instead of an implicit rebind: the session keeps its watermark and
 * its cached replies, only the epoch moves, and the old epoch is fenced.
 */
describe('given a session resumed by REGISTER', () => {
  let service: ServiceProcess;
  const open: RawClient[] = [];
  const connect = async (): Promise<RawClient> => {
    const raw = await RawClient.connect(service.port);
    open.push(raw);
    return raw;
  };

  beforeAll(async () => {
    service = await startService();
  });
  afterEach(() => {
    for (const raw of open.splice(0)) raw.destroy();
  });
  afterAll(() => service.cleanup());

  describe('given a committed deposit and a node killed with SIGKILL', () => {
    const client = randomClientId();
    const account = 'resume-by-register';
    const depositBody = JSON.stringify({
      pattern: 'ledger.deposit',
      data: { account, amount: 5 },
    });
    let before: Session;
    let firstReply: Buffer;

    beforeAll(async () => {
      const first = await connect();
      before = (await registerOk(first, client)).session;
      await commandOk(first, before, 1, 'ledger.open', { account });
      const reply = await first.request(
        {
          operation: Operation.Command,
          client,
          session: before.epoch,
          request: 2,
          resumeToken: before.resumeToken,
        },
        depositBody,
      );
      expect(reply.header).toMatchObject({ status: Status.Ok, request: 2, watermark: 2 });
      firstReply = Buffer.from(reply.raw);
      await service.crash();
      await service.restart();
    });

    it('when the client REGISTERs the same id again, then it gets a newer epoch equal to the op, its old watermark and a token for the new epoch; a retry under the new epoch gets the first reply byte for byte; the next number applies once', async () => {
      const second = await connect();
      const registered = await second.register(client, 'admin', ADMIN_PASSWORD);
      expect(registered.header).toMatchObject({
        command: Command.Reply,
        operation: Operation.Register,
        status: Status.Ok,
        client,
        watermark: 2,
      });
      const after = registrationOf(registered);
      expect(after.epoch).toBeGreaterThan(before.epoch);
      expect(registered.header.session).toBe(after.epoch);
      expect(registered.header.op).toBe(after.epoch);
      expect(after.watermark).toBe(2);
      expect(after.userId).toBe(before.userId);
      expect(after.resumeToken).toHaveLength(16);
      expect(after.resumeToken.equals(before.resumeToken)).toBe(false);

      // (a) The committed request, resent under the NEW epoch with its number and body.
      const retried = await second.request(
        {
          operation: Operation.Command,
          client,
          session: after.epoch,
          request: 2,
          resumeToken: after.resumeToken,
        },
        depositBody,
      );
      expect(retried.raw.equals(firstReply)).toBe(true);
      expect(retried.header.session).toBe(before.epoch);

      // (b) The next number is admitted under the new epoch and applied once.
      const session = { ...after, client };
      const next = await commandOk(second, session, 3, 'ledger.deposit', { account, amount: 1 });
      expect(next.header.session).toBe(after.epoch);
      expect(outcomeOf(next)).toEqual({ ok: true, result: { balance: 6 } });
      expect(await queryResult(second, session, 'ledger.balance', { account })).toEqual({
        balance: 6,
      });

      // The new epoch's token resumes the session on another connection (SUPERSEDED the first).
      const third = await connect();
      const resumed = await commandOk(third, session, 4, 'ledger.deposit', { account, amount: 1 });
      expect(outcomeOf(resumed)).toEqual({ ok: true, result: { balance: 7 } });
      const superseded = await second.next();
      expect(superseded.header).toMatchObject({
        command: Command.Eviction,
        status: EvictionReason.Superseded,
        client,
        session: after.epoch,
      });

      // The pre-crash epoch's token is fenced, and applies nothing.
      const stale = await connect();
      const fenced = await stale.command(
        client,
        before.epoch,
        5,
        'ledger.deposit',
        { account, amount: 100 },
        before.resumeToken,
      );
      expect(fenced.header).toMatchObject({
        command: Command.Eviction,
        status: EvictionReason.SessionTooLow,
        client,
        session: before.epoch,
        request: 5,
        watermark: 4,
      });
      expect(await queryResult(third, session, 'ledger.balance', { account })).toEqual({
        balance: 7,
      });
    });
  });

  describe('given connection A bound to a session and connection B re-registering its client id', () => {
    it('when A sends its next COMMAND, then A is evicted with SESSION_TOO_LOW, nothing is applied, and B goes on under the new epoch', async () => {
      const client = randomClientId();
      const account = 'fenced-by-register';
      const a = await connect();
      const onA = (await registerOk(a, client)).session;
      await commandOk(a, onA, 1, 'ledger.open', { account });

      const b = await connect();
      const { frame: bRegistered, session: onB } = await registerOk(b, client);
      expect(onB.epoch).toBeGreaterThan(onA.epoch);
      expect(bRegistered.header.watermark).toBe(1);
      expect(onB.watermark).toBe(1);

      const depositTwo = JSON.stringify({
        pattern: 'ledger.deposit',
        data: { account, amount: 10 },
      });
      const fencedFrame = encodeFrame(
        {
          command: Command.Request,
          operation: Operation.Command,
          client,
          session: onA.epoch,
          request: 2,
        },
        depositTwo,
      );
      a.write(fencedFrame);
      const fenced = await a.next();
      expect(fenced.header).toMatchObject({
        command: Command.Eviction,
        operation: Operation.Command,
        status: EvictionReason.SessionTooLow,
        client,
        session: onA.epoch,
        request: 2,
        watermark: 1,
      });
      expect(fenced.body).toHaveLength(0);

      // A is unbound now: without a token it holds nothing, even under the new epoch.
      const unbound = await a.command(client, onB.epoch, 2, 'ledger.deposit', {
        account,
        amount: 10,
      });
      expect(unbound.header).toMatchObject({ command: Command.Reply, status: Status.NotBound });

      // B's next number is 2: the fenced request was never applied.
      const next = await commandOk(b, onB, 2, 'ledger.deposit', { account, amount: 1 });
      expect(outcomeOf(next)).toEqual({ ok: true, result: { balance: 1 } });
      expect(await queryResult(b, onB, 'ledger.balance', { account })).toEqual({ balance: 1 });
    });
  });

  describe('given a request still in flight when its connection is lost and the client REGISTERs again', () => {
    it('when the client resends that request under the new epoch with its number and body, then it gets one OK reply for it, the effect applies once, and the next number is admitted', async () => {
      const setup = await connect();
      const admin = (await registerOk(setup, randomClientId())).session;
      await commandOk(setup, admin, 1, 'users.create', { username: 'erin', password: 'erin-1' });

      const client = randomClientId();
      const a = await connect();
      const onA = (await registerOk(a, client, 'erin', 'erin-1')).session;
      await commandOk(a, onA, 1, 'ledger.open', { account: 'erin' });
      // users.changePassword is slow to admit (two scrypt hashes before it is journaled),
      // slower than the REGISTER below (one): it is still in flight when that commits.
      const change = JSON.stringify({
        pattern: 'users.changePassword',
        data: { currentPassword: 'erin-1', newPassword: 'erin-2' },
      });
      a.send({ operation: Operation.Command, client, session: onA.epoch, request: 2 }, change);
      a.close();

      const b = await connect();
      let registered = await b.register(client, 'erin', 'erin-1');
      if (registered.header.status === (Status.Unauthenticated as number)) {
        // The other interleaving: request 2 applied before this REGISTER was authenticated.
        registered = await b.register(client, 'erin', 'erin-2');
      }
      expect(registered.header.status).toBe(Status.Ok);
      const onB = { ...registrationOf(registered), client };
      expect(onB.epoch).toBeGreaterThan(onA.epoch);
      expect([1, 2]).toContain(onB.watermark);

      // The in-doubt request 2 (> watermark, or ≤ it) is retried under its own number.
      const retried = await b.request(
        { operation: Operation.Command, client, session: onB.epoch, request: 2 },
        change,
      );
      expect(retried.header).toMatchObject({
        command: Command.Reply,
        status: Status.Ok,
        client,
        request: 2,
        watermark: 2,
      });
      expect(outcomeOf(retried)).toEqual({ ok: true, result: {} });

      const next = await commandOk(b, onB, 3, 'ledger.deposit', { account: 'erin', amount: 1 });
      expect(next.header.session).toBe(onB.epoch);

      // Applied once: the new password is in force (a second application would have been refused).
      const check = await connect();
      expect((await check.register(randomClientId(), 'erin', 'erin-1')).header.status).toBe(
        Status.Unauthenticated,
      );
      await registerOk(check, randomClientId(), 'erin', 'erin-2');
    });
  });
});
