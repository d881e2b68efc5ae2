import { Command, EvictionReason, Operation, Status } from '@once/protocol';
import { type RawClient, type ServiceProcess, outcomeOf } from '@once/testing';
import {
  Connections,
  TestSession,
  accountName,
  expectAnswerTo,
  expectUnaskedEviction,
  pingCommit,
  requestBytes,
  startService,
} from '../support/wire';

/**
 * Every eviction reason of PROTOCOL.md ("Eviction reasons"), each from its
 * cause: as the answer to a request (NO_SESSION, SESSION_TOO_LOW, and EXPIRED
 * for an expired session) and unasked, to the connection bound to a session
 * when that session ends or moves (EVICTED, SUPERSEDED, LOGGED_OUT, EXPIRED).
 */
describe('given a node with default limits', () => {
  let service: ServiceProcess;
  let connections: Connections;

  beforeAll(async () => {
    service = await startService();
    connections = new Connections(() => service.port);
  });
  afterAll(async () => {
    connections.destroyAll();
    await service.cleanup();
  });

  describe('given reason NO_SESSION (1)', () => {
    it('when a session logged out and its resume token is presented on a new connection, then EVICTION NO_SESSION echoing the request; the connection that logged out gets the same answer', async () => {
      const holder = await connections.connect();
      const session = await TestSession.open(holder);
      const logout = logoutBytes(session, 1);
      const loggedOut = await sendAndNext(holder, logout);
      expectAnswerTo(loggedOut, logout, {
        command: Command.Reply,
        status: Status.Ok,
        op: loggedOut.header.op,
        commit: loggedOut.header.op,
        watermark: 1,
        replicated: true,
      });
      await holder.expectSilence(100);
      const connection = await connections.connect();
      const commit = await pingCommit(connection);

      const request = session.commandBytes('ledger.open', { account: accountName() }, 2);
      const answer = await sendAndNext(connection, request);

      expectAnswerTo(answer, request, {
        command: Command.Eviction,
        status: EvictionReason.NoSession,
        op: 0,
        commit,
      });
      expect(await pingCommit(connection)).toBe(commit);
      const fromHolder = await sendAndNext(holder, request);
      expectAnswerTo(fromHolder, request, {
        command: Command.Eviction,
        status: EvictionReason.NoSession,
        op: 0,
        commit,
      });
    });
  });

  describe('given reason SESSION_TOO_LOW (2)', () => {
    it('when the same client id REGISTERs again on a second connection, then the first connection’s next COMMAND gets EVICTION SESSION_TOO_LOW and it is unbound: its following COMMAND without a token is NOT_BOUND', async () => {
      const first = await connections.connect();
      const old = await TestSession.open(first);
      const account = accountName();
      await old.command('ledger.open', { account });
      const second = await connections.connect();
      const renewed = await TestSession.open(second, { client: old.client });
      expect(renewed.epoch).toBeGreaterThan(old.epoch);
      expect(renewed.registered.header.watermark).toBe(1);
      expect(renewed.registration.watermark).toBe(1);
      // The session did not end (it moved to a newer epoch): nothing is sent unasked.
      await first.expectSilence(100);
      const commit = await pingCommit(first);

      const fenced = old.commandBytes('ledger.deposit', { account, amount: 1 }, 2);
      const answer = await sendAndNext(first, fenced);

      expectAnswerTo(answer, fenced, {
        command: Command.Eviction,
        status: EvictionReason.SessionTooLow,
        op: 0,
        commit,
        watermark: 1,
      });
      expect(answer.header.session).toBe(old.epoch);
      const withoutToken = requestBytes(
        { operation: Operation.Command, client: old.client, session: old.epoch, request: 2 },
        JSON.stringify({ pattern: 'ledger.deposit', data: { account, amount: 1 } }),
      );
      const unbound = await sendAndNext(first, withoutToken);
      expectAnswerTo(unbound, withoutToken, {
        command: Command.Reply,
        status: Status.NotBound,
        op: 0,
        commit,
      });
      renewed.next = 2;
      const next = await renewed.command('ledger.deposit', { account, amount: 4 });
      expect(next.reply.header).toMatchObject({ status: Status.Ok, request: 2, watermark: 2 });
      expect(outcomeOf(next.reply)).toEqual({ ok: true, result: { balance: 4 } });
    });

    it('when the resume token of an older epoch is presented on a new connection, then EVICTION SESSION_TOO_LOW (fenced), and the current holder is not superseded', async () => {
      const first = await connections.connect();
      const old = await TestSession.open(first);
      const second = await connections.connect();
      const renewed = await TestSession.open(second, { client: old.client });
      const connection = await connections.connect();
      const commit = await pingCommit(connection);

      const request = old.commandBytes('ledger.open', { account: accountName() }, 1);
      const answer = await sendAndNext(connection, request);

      expectAnswerTo(answer, request, {
        command: Command.Eviction,
        status: EvictionReason.SessionTooLow,
        op: 0,
        commit,
        watermark: 0,
      });
      await second.expectSilence(100);
      const next = await renewed.command('ledger.open', { account: accountName() });
      expect(next.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    });
  });

  describe('given reason SUPERSEDED (4)', () => {
    it('when a second connection resumes a held session with its token, then the holder receives an unasked EVICTION SUPERSEDED and is unbound, and the second connection is answered', async () => {
      const holder = await connections.connect();
      const session = await TestSession.open(holder);
      const account = accountName();
      await session.command('ledger.open', { account });
      const other = await connections.connect();

      const resumed = await session.command('ledger.deposit', { account, amount: 2 }, other);

      const eviction = await holder.next();
      expectUnaskedEviction(eviction, {
        reason: EvictionReason.Superseded,
        client: session.client,
        session: session.epoch,
        watermark: 1,
      });
      expectAnswerTo(resumed.reply, resumed.request, {
        command: Command.Reply,
        status: Status.Ok,
        op: resumed.reply.header.op,
        commit: resumed.reply.header.op,
        watermark: 2,
        replicated: true,
      });
      expect(outcomeOf(resumed.reply)).toEqual({ ok: true, result: { balance: 2 } });
      await holder.expectSilence(100);
      const withoutToken = requestBytes(
        {
          operation: Operation.Command,
          client: session.client,
          session: session.epoch,
          request: 3,
        },
        JSON.stringify({ pattern: 'ledger.deposit', data: { account, amount: 1 } }),
      );
      expect((await sendAndNext(holder, withoutToken)).header).toMatchObject({
        command: Command.Reply,
        status: Status.NotBound,
      });
    });
  });

  describe('given reason LOGGED_OUT (5)', () => {
    it('when a client REGISTERs again on B (A fenced but still bound) and B sends LOGOUT, then B gets the LOGOUT reply and A receives an unasked EVICTION LOGGED_OUT; afterwards the session is gone', async () => {
      const a = await connections.connect();
      const fenced = await TestSession.open(a);
      const b = await connections.connect();
      const current = await TestSession.open(b, { client: fenced.client });

      const logout = logoutBytes(current, 1);
      const reply = await sendAndNext(b, logout);

      const logoutOp = reply.header.op;
      expectAnswerTo(reply, logout, {
        command: Command.Reply,
        status: Status.Ok,
        op: logoutOp,
        commit: logoutOp,
        watermark: 1,
        replicated: true,
      });
      const eviction = await a.next();
      expectUnaskedEviction(eviction, {
        reason: EvictionReason.LoggedOut,
        client: fenced.client,
        session: fenced.epoch,
        commit: logoutOp,
      });
      await b.expectSilence(100);
      await a.expectSilence(100);
      const after = current.commandBytes('ledger.open', { account: accountName() }, 2);
      expectAnswerTo(await sendAndNext(b, after), after, {
        command: Command.Eviction,
        status: EvictionReason.NoSession,
        op: 0,
        commit: logoutOp,
      });
    });
  });
});

describe('given a node whose client table holds 2 sessions (ONCE_CLIENTS_MAX=2)', () => {
  let service: ServiceProcess;
  let connections: Connections;

  beforeAll(async () => {
    service = await startService({ ONCE_CLIENTS_MAX: '2' });
    connections = new Connections(() => service.port);
  });
  afterAll(async () => {
    connections.destroyAll();
    await service.cleanup();
  });

  it('when a third client REGISTERs, then the session with the oldest last commit is evicted: its connection receives an unasked EVICTION EVICTED, and its next request (with its token) gets EVICTION NO_SESSION', async () => {
    const first = await connections.connect();
    const oldest = await TestSession.open(first);
    const account = accountName();
    await oldest.command('ledger.open', { account });
    const second = await connections.connect();
    const middle = await TestSession.open(second);
    const third = await connections.connect();

    const newest = await TestSession.open(third);

    const eviction = await first.next();
    expectUnaskedEviction(eviction, {
      reason: EvictionReason.Evicted,
      client: oldest.client,
      session: oldest.epoch,
      commit: newest.epoch,
      watermark: 1,
    });
    await second.expectSilence(100);
    const commit = await pingCommit(first);
    const request = oldest.commandBytes('ledger.deposit', { account, amount: 1 }, 2);
    const answer = await sendAndNext(first, request);
    expectAnswerTo(answer, request, {
      command: Command.Eviction,
      status: EvictionReason.NoSession,
      op: 0,
      commit,
    });
    for (const survivor of [middle, newest]) {
      const next = await survivor.command('ledger.open', { account: accountName() });
      expect(next.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    }
  });
});

describe('given a node whose sessions expire after 1 s idle (ONCE_SESSION_TTL_MS=1s)', () => {
  let service: ServiceProcess;
  let connections: Connections;

  beforeAll(async () => {
    service = await startService({ ONCE_SESSION_TTL_MS: '1s' });
    connections = new Connections(() => service.port);
  });
  afterAll(async () => {
    connections.destroyAll();
    await service.cleanup();
  });

  it('when a session stays idle past the lifetime and another client commits, then its holder receives an unasked EVICTION EXPIRED, and its next request with its token on a new connection gets EVICTION EXPIRED', async () => {
    const holder = await connections.connect();
    const idle = await TestSession.open(holder);
    const account = accountName();
    const opened = await idle.command('ledger.open', { account });

    await new Promise((resolve) => setTimeout(resolve, 1500));
    const otherConnection = await connections.connect();
    const other = await TestSession.open(otherConnection);
    const committed = await other.command('ledger.open', { account: accountName() });
    expect(committed.reply.header).toMatchObject({ status: Status.Ok, request: 1 });

    const eviction = await holder.next();
    // The session ends at the first entry journaled past its lifetime, the one after its
    // ledger.open: the REPLY_CHECK of that reply, journaled just before the other client's
    // REGISTER and with it.
    const expiredAt = opened.reply.header.op + 1;
    expect(other.epoch).toBe(expiredAt + 1);
    expectUnaskedEviction(eviction, {
      reason: EvictionReason.Expired,
      client: idle.client,
      session: idle.epoch,
      commit: expiredAt,
      watermark: 1,
    });
    await holder.expectSilence(100);
    const connection = await connections.connect();
    const commit = await pingCommit(connection);
    const request = idle.commandBytes('ledger.deposit', { account, amount: 1 }, 2);
    const answer = await sendAndNext(connection, request);
    expectAnswerTo(answer, request, {
      command: Command.Eviction,
      status: EvictionReason.Expired,
      op: 0,
      commit,
    });
  });

  it('when a session that expired is REGISTERed again and then logs out, then its token gets EVICTION NO_SESSION: the new session ended by LOGOUT, not by expiry', async () => {
    const holder = await connections.connect();
    const idle = await TestSession.open(holder);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const otherConnection = await connections.connect();
    await TestSession.open(otherConnection);
    expect((await holder.next()).header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.Expired,
    });

    const again = await connections.connect();
    const renewed = await TestSession.open(again, { client: idle.client });
    expect(renewed.epoch).toBeGreaterThan(idle.epoch);
    const logout = logoutBytes(renewed, 1);
    const loggedOut = await sendAndNext(again, logout);
    expect(loggedOut.header).toMatchObject({ command: Command.Reply, status: Status.Ok });
    const connection = await connections.connect();
    const commit = await pingCommit(connection);

    const request = renewed.commandBytes('ledger.open', { account: accountName() }, 2);
    const answer = await sendAndNext(connection, request);

    expectAnswerTo(answer, request, {
      command: Command.Eviction,
      status: EvictionReason.NoSession,
      op: 0,
      commit,
    });
  });
});

/** A LOGOUT of `session` under `request` (empty body, with the resume token). */
function logoutBytes(session: TestSession, request: number): Buffer {
  return requestBytes({
    operation: Operation.Logout,
    client: session.client,
    session: session.epoch,
    request,
    resumeToken: session.token,
  });
}

/** Writes `bytes` and returns the next frame the node sends on `connection`. */
function sendAndNext(connection: RawClient, bytes: Buffer) {
  connection.write(bytes);
  return connection.next();
}
