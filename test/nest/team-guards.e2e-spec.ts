import { join } from 'node:path';
import { Command, EvictionReason, Status, randomClientId } from '@once/protocol';
import { type RawClient, ServiceProcess, eventually, outcomeOf } from '@once/testing';
import { type GuardRecord, QUARANTINED_CLIENT } from '../fixtures/team-guards/desk.guards';
import { type Booking, DESK_USERS } from '../fixtures/team-guards/desk.module';
import { Connections, TestSession, expectAnswerTo } from '../support/wire';

const DESK_SERVICE = join(__dirname, '../fixtures/team-guards/desk-service.main.ts');

type User = keyof typeof DESK_USERS;

/**
 * A team's app (test/fixtures/team-guards) as a child process: an APP_GUARD,
 * a guard registered with `app.useGlobalGuards` that can hold a request at a
 * named gate, and a method guard on `desk.book` and `desk.bookings`, each
 * recording what it read from OnceRpcContext in a ledger a query returns.
 */
describe('given a team app whose guards read OnceRpcContext (APP_GUARD, useGlobalGuards, a method guard)', () => {
  let service: ServiceProcess;
  const connections = new Connections(() => service.port);
  /** A session of alice's that only reads the ledger and releases gates. */
  let observer: TestSession;

  beforeAll(async () => {
    service = await ServiceProcess.start({ entry: DESK_SERVICE });
    observer = await open('alice');
  });
  afterAll(async () => {
    connections.destroyAll();
    await service?.cleanup();
  });

  async function open(user: User, connection?: RawClient, client = randomClientId()) {
    return TestSession.open(connection ?? (await connections.connect()), {
      client,
      username: user,
      password: DESK_USERS[user],
    });
  }

  async function query<T>(pattern: string, data: unknown): Promise<T> {
    observer.connection.write(observer.queryBytes(pattern, data));
    const outcome = outcomeOf(await observer.connection.next());
    if (!outcome.ok) throw new Error(`${pattern} refused: ${JSON.stringify(outcome.error)}`);
    return outcome.result as T;
  }

  /** What the guards recorded for (client, request) of a command, in the order they ran. */
  async function guardsOf(client: string, request: number): Promise<GuardRecord[]> {
    const ledger = await query<GuardRecord[]>('desk.guard-ledger', {});
    return ledger.filter((record) => record.client === client && record.request === request);
  }

  describe('when a connection that never sent REGISTER resumes alice’s session by token with its first COMMAND', () => {
    let session: TestSession;
    let records: GuardRecord[];

    beforeAll(async () => {
      session = await open('alice');
      const resumed = await connections.connect();
      const request = session.commandBytes('desk.book', { seat: 'A1' }, 1);
      resumed.write(request);
      const reply = await resumed.next();
      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.Ok,
        watermark: 1,
        replicated: true,
      });
      expect(outcomeOf(reply)).toMatchObject({ ok: true, result: { seat: 'A1', userId: 1 } });
      records = await guardsOf(session.client, 1);
    });

    it('then the app-wide guards ran first (APP_GUARD, then useGlobalGuards) and the method guard last, once each', () => {
      expect(records.map(({ guard }) => guard)).toEqual(['app', 'global', 'method']);
    });

    it('then the method guard, behind the session guards, saw the connection bound to the registered session and user', () => {
      expect(records.at(-1)).toMatchObject({
        guard: 'method',
        pattern: 'desk.book',
        client: session.client,
        userId: session.registration.userId,
        epoch: session.epoch,
      });
      expect(session.registration.userId).toBe(1);
    });
  });

  describe('when the method guard refuses what it read from OnceRpcContext (bob may not book)', () => {
    it('then FORBIDDEN is committed, and a retry of the same number gets the same bytes without the guard running again', async () => {
      const bob = await open('bob');
      const request = bob.commandBytes('desk.book', { seat: 'B2' }, 1);
      bob.connection.write(request);
      const refused = await bob.connection.next();
      expectAnswerTo(refused, request, {
        command: Command.Reply,
        status: Status.Ok,
        watermark: 1,
        replicated: true,
      });
      expect(outcomeOf(refused)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });

      bob.connection.write(request);
      const retried = await bob.connection.next();
      expect(retried.raw.equals(refused.raw)).toBe(true);

      const method = (await guardsOf(bob.client, 1)).filter(({ guard }) => guard === 'method');
      expect(method).toEqual([
        expect.objectContaining({ pattern: 'desk.book', client: bob.client, userId: 2 }),
      ]);
      const bookings = await query<Booking[]>('desk.bookings', {});
      expect(bookings.map(({ seat }) => seat)).not.toContain('B2');
    });
  });

  describe('when a session is superseded by a REGISTER of its client id on another connection', () => {
    it('then a request of the old epoch is answered EVICTION SESSION_TOO_LOW and never reaches the method guard', async () => {
      const old = await open('alice');
      const { reply: booked } = await old.command('desk.book', { seat: 'C3' });
      expect(outcomeOf(booked)).toMatchObject({ ok: true });
      const renewed = await open('alice', undefined, old.client);
      expect(renewed.epoch).toBeGreaterThan(old.epoch);
      const methodBefore = await methodRecordsOf(old.client);

      const request = old.commandBytes('desk.book', { seat: 'C4' }, 2);
      old.connection.write(request);
      expectAnswerTo(await old.connection.next(), request, {
        command: Command.Eviction,
        status: EvictionReason.SessionTooLow,
      });
      expect(await methodRecordsOf(old.client)).toEqual(methodBefore);
    });

    it('then a request already past the gateway, held by the global guard while the REGISTER commits, is fenced by EpochFenceGuard: unjournaled, and the method guard never sees it', async () => {
      const old = await open('alice');
      const held = old.commandBytes('desk.book', { seat: 'D4', hold: 'fence-race' }, 1);
      old.connection.write(held);
      await eventually(
        async () => (await guardsOf(old.client, 1)).some(({ guard }) => guard === 'global'),
        'the held request to reach the global guard',
      );

      const renewed = await open('alice', undefined, old.client);
      expect(renewed.epoch).toBeGreaterThan(old.epoch);
      await query('desk.release', { gate: 'fence-race' });

      expectAnswerTo(await old.connection.next(), held, {
        command: Command.Eviction,
        status: EvictionReason.SessionTooLow,
      });
      expect((await guardsOf(old.client, 1)).map(({ guard }) => guard)).toEqual(['app', 'global']);

      // Nothing was journaled for it: the new epoch's request 1 is the session's first.
      const { request, reply } = await renewed.command('desk.book', { seat: 'D5' });
      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.Ok,
        watermark: 1,
        replicated: true,
      });
      const seats = (await query<Booking[]>('desk.bookings', {})).map(({ seat }) => seat);
      expect(seats).toContain('D5');
      expect(seats).not.toContain('D4');
    });
  });

  async function methodRecordsOf(client: string): Promise<GuardRecord[]> {
    const ledger = await query<GuardRecord[]>('desk.guard-ledger', {});
    return ledger.filter((record) => record.client === client && record.guard === 'method');
  }
});

describe('given the team app built with overrideGuard(EpochFenceGuard).useClass(QuarantineFence)', () => {
  let service: ServiceProcess;
  const connections = new Connections(() => service.port);
  const quarantined = randomClientId();

  beforeAll(async () => {
    service = await ServiceProcess.start({
      entry: DESK_SERVICE,
      env: { [QUARANTINED_CLIENT]: quarantined },
    });
  });
  afterAll(async () => {
    connections.destroyAll();
    await service?.cleanup();
  });

  const open = async (client = randomClientId()) =>
    TestSession.open(await connections.connect(), {
      client,
      username: 'alice',
      password: DESK_USERS.alice,
    });

  it('when a client passes the stricter fence, then it ran in the fence’s place (after the global guards, before the method guard)', async () => {
    const alice = await open();
    const { request, reply } = await alice.command('desk.book', { seat: 'E1' });
    expectAnswerTo(reply, request, {
      command: Command.Reply,
      status: Status.Ok,
      watermark: 1,
      replicated: true,
    });

    const ledger = await ledgerOf(alice);
    const guards = ledger
      .filter((record) => record.client === alice.client && record.pattern === 'desk.book')
      .map(({ guard }) => guard);
    expect(guards).toEqual(['app', 'global', 'fence', 'method']);
  });

  it('when the quarantined client id sends a COMMAND on its valid session, then the replacement answers EVICTION NO_SESSION, unjournaled', async () => {
    const suspect = await open(quarantined);
    const request = suspect.commandBytes('desk.book', { seat: 'E2' }, 1);
    suspect.connection.write(request);
    expectAnswerTo(await suspect.connection.next(), request, {
      command: Command.Eviction,
      status: EvictionReason.NoSession,
    });

    const reader = await open();
    const ledger = await ledgerOf(reader);
    expect(
      ledger.filter((record) => record.client === quarantined).map(({ guard }) => guard),
    ).toEqual(['app', 'global', 'fence']);
    const bookings = outcomeOf(await queryOf(reader, 'desk.bookings'));
    expect(bookings).toMatchObject({ ok: true });
    expect((bookings as { result: Booking[] }).result.map(({ seat }) => seat)).not.toContain('E2');
  });

  async function queryOf(session: TestSession, pattern: string) {
    session.connection.write(session.queryBytes(pattern, {}));
    return session.connection.next();
  }

  async function ledgerOf(session: TestSession): Promise<GuardRecord[]> {
    const outcome = outcomeOf(await queryOf(session, 'desk.guard-ledger'));
    if (!outcome.ok) throw new Error(`the ledger query was refused: ${JSON.stringify(outcome)}`);
    return outcome.result as GuardRecord[];
  }
});
