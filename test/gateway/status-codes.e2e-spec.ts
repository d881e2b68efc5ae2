import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OnceRuntime } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { Command, Operation, Status, randomClientId } from '@once/protocol';
import { Offset, checksum } from '@once/protocol/internal';
import {
  RawClient,
  type ServiceProcess,
  bodyJson,
  outcomeOf,
  withJournalHooks,
} from '@once/testing';
import { AppModule, adminGenesis } from '../../apps/server/src/app.module';
import {
  ADMIN_PASSWORD,
  Connections,
  TestSession,
  accountName,
  commandBody,
  expectAnswerTo,
  nextFrames,
  onlyFrameThenClosed,
  pingCommit,
  requestBytes,
  resealHeader,
  startService,
} from '../support/wire';

/**
 * Every status code of PROTOCOL.md ("Status codes"), each provoked by its
 * cause over real TCP against the built reference service, with the answer's
 * header checked field by field.
 */
describe('given a ready node serving the reference service with its admin user', () => {
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

  describe('given status OK (0)', () => {
    it('when a client REGISTERs with the right credentials, then OK under the new epoch: session = op = commit = epoch, watermark 0, and the body carries userId, epoch, watermark and a 32-hex-digit resume token', async () => {
      const connection = await connections.connect();
      const before = await pingCommit(connection);

      const session = await TestSession.open(connection);

      const reply = session.registered;
      const epoch = reply.header.op;
      expect(epoch).toBeGreaterThan(before);
      expectAnswerTo(reply, session.registerRequest, {
        command: Command.Reply,
        status: Status.Ok,
        session: epoch,
        op: epoch,
        commit: epoch,
        watermark: 0,
        replicated: true,
      });
      expect(bodyJson(reply)).toEqual({
        userId: expect.any(Number),
        epoch,
        watermark: 0,
        resumeToken: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      expect(await pingCommit(connection)).toBe(epoch);
    });

    it('when a bound session sends COMMANDs 1 and 2, then each is OK with op = commit = its own journal op, watermark = its request number, and the outcome as body', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();

      const open = await session.command('ledger.open', { account });
      const openOp = open.reply.header.op;
      expect(openOp).toBeGreaterThan(session.epoch);
      expectAnswerTo(open.reply, open.request, {
        command: Command.Reply,
        status: Status.Ok,
        op: openOp,
        commit: openOp,
        watermark: 1,
        replicated: true,
      });
      expect(outcomeOf(open.reply)).toEqual({ ok: true, result: { account, balance: 0 } });
      expect(await pingCommit(connection)).toBe(openOp);

      const deposit = await session.command('ledger.deposit', { account, amount: 7 });
      const depositOp = deposit.reply.header.op;
      expect(depositOp).toBeGreaterThan(openOp);
      expectAnswerTo(deposit.reply, deposit.request, {
        command: Command.Reply,
        status: Status.Ok,
        op: depositOp,
        commit: depositOp,
        watermark: 2,
        replicated: true,
      });
      expect(outcomeOf(deposit.reply)).toEqual({ ok: true, result: { balance: 7 } });
    });

    it('when a COMMAND is refused by its handler or names an unknown pattern, then it is still committed: OK with op = commit, watermark = request, and an {"ok": false} outcome', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);

      const refused = await session.command('ledger.deposit', {
        account: accountName('missing'),
        amount: 1,
      });
      expectAnswerTo(refused.reply, refused.request, {
        command: Command.Reply,
        status: Status.Ok,
        op: refused.reply.header.op,
        commit: refused.reply.header.op,
        watermark: 1,
        replicated: true,
      });
      expect(outcomeOf(refused.reply)).toEqual({
        ok: false,
        error: { code: 'ACCOUNT_NOT_FOUND', message: expect.any(String) },
      });

      const unknown = await session.command('no.such.pattern', {});
      expectAnswerTo(unknown.reply, unknown.request, {
        command: Command.Reply,
        status: Status.Ok,
        op: unknown.reply.header.op,
        commit: unknown.reply.header.op,
        watermark: 2,
        replicated: true,
      });
      expect(outcomeOf(unknown.reply)).toEqual({
        ok: false,
        error: { code: 'UNKNOWN_PATTERN', message: expect.any(String) },
      });
    });

    it('when a bound connection sends a QUERY, then OK served from the committed state: op 0, commit = the node’s commit, timestamp 0, watermark = the session’s watermark', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();
      await session.command('ledger.open', { account });
      const deposit = await session.command('ledger.deposit', { account, amount: 11 });
      const commit = await pingCommit(connection);
      expect(commit).toBe(deposit.reply.header.op);

      const query = session.queryBytes('ledger.balance', { account });
      const reply = await sendAndNext(connection, query);

      expectAnswerTo(reply, query, {
        command: Command.Reply,
        status: Status.Ok,
        op: 0,
        commit,
        watermark: 2,
      });
      expect(outcomeOf(reply)).toEqual({ ok: true, result: { balance: 11 } });
      expect(await pingCommit(connection)).toBe(commit);
    });

    it('when an unbound connection PINGs, then OK with body {"version":1,"commit":n,"ready":true} where n is the node’s highest committed op, then the cluster keys of a single node', async () => {
      const sessionConnection = await connections.connect();
      const session = await TestSession.open(sessionConnection);
      const committed = await session.command('ledger.open', { account: accountName() });
      const commit = committed.reply.header.op;

      const connection = await connections.connect();
      const ping = requestBytes({ operation: Operation.Ping });
      const reply = await sendAndNext(connection, ping);

      expectAnswerTo(reply, ping, {
        command: Command.Reply,
        status: Status.Ok,
        op: 0,
        commit,
        watermark: 0,
      });
      expect(bodyJson(reply)).toEqual({
        version: 1,
        commit,
        ready: true,
        node: null,
        role: 'none',
        leader: null,
      });
      // PROTOCOL.md's keys keep their bytes and their place: an old reader's prefix still matches.
      expect(reply.body.toString('utf8')).toBe(
        `{"version":1,"commit":${commit},"ready":true,"node":null,"role":"none","leader":null}`,
      );
    });
  });

  describe('given framing failures', () => {
    it('when a frame’s header checksum is wrong, then one REPLY BAD_FRAME (op 0, commit = the node’s) and the node closes the connection', async () => {
      const witness = await connections.connect();
      const commit = await pingCommit(witness);
      const connection = await connections.connect();
      const frame = requestBytes({ operation: Operation.Ping });
      frame[Offset.checksum] ^= 0x01;
      connection.write(frame);

      const reply = await onlyFrameThenClosed(connection);

      expect({
        command: reply.header.command,
        status: reply.header.status,
        op: reply.header.op,
        commit: reply.header.commit,
        timestamp: reply.header.timestamp,
      }).toEqual({ command: Command.Reply, status: Status.BadFrame, op: 0, commit, timestamp: 0n });
    });

    it('when a frame carries version 2, then one REPLY VERSION_UNSUPPORTED and the node closes the connection', async () => {
      const connection = await connections.connect();
      const frame = requestBytes({ operation: Operation.Ping });
      frame.writeUInt16LE(2, Offset.version);
      resealHeader(frame);
      connection.write(frame);

      const reply = await onlyFrameThenClosed(connection);

      expect({
        command: reply.header.command,
        status: reply.header.status,
        op: reply.header.op,
      }).toEqual({ command: Command.Reply, status: Status.VersionUnsupported, op: 0 });
    });
  });

  describe('given status INVALID_REQUEST (3) for a header or body rule broken before any session lookup', () => {
    const client = randomClientId();
    const credentials = JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD });
    const balance = commandBody('ledger.balance', { account: 'any' });
    const cases: Array<[string, () => Buffer]> = [
      [
        'the operation code is 9 (unknown)',
        () => requestBytes({ operation: 9, client, session: 3, request: 1 }, balance),
      ],
      [
        'a COMMAND carries a non-zero op field (request bytes 96..103)',
        () =>
          requestBytes(
            { operation: Operation.Command, client, session: 3, request: 1, op: 1 },
            balance,
          ),
      ],
      [
        'a PING carries a non-zero byte 127 (the last byte of 96..127)',
        () => {
          const frame = requestBytes({ operation: Operation.Ping });
          frame[127] = 1;
          return resealHeader(frame);
        },
      ],
      [
        'a REGISTER carries session 1',
        () => requestBytes({ operation: Operation.Register, client, session: 1 }, credentials),
      ],
      [
        'a COMMAND carries client 0',
        () => requestBytes({ operation: Operation.Command, session: 3, request: 1 }, balance),
      ],
      [
        'a COMMAND body is not JSON',
        () =>
          requestBytes(
            { operation: Operation.Command, client, session: 3, request: 1 },
            'pattern=ledger.open',
          ),
      ],
      [
        'a COMMAND body has no "pattern"',
        () =>
          requestBytes(
            { operation: Operation.Command, client, session: 3, request: 1 },
            JSON.stringify({ data: { account: 'x' } }),
          ),
      ],
      [
        'a QUERY carries request 1',
        () => requestBytes({ operation: Operation.Query, client, session: 3, request: 1 }, balance),
      ],
      [
        'a REGISTER carries request 1',
        () => requestBytes({ operation: Operation.Register, client, request: 1 }, credentials),
      ],
      [
        'a REGISTER carries client 0',
        () => requestBytes({ operation: Operation.Register }, credentials),
      ],
      [
        'a REGISTER body has no "password"',
        () =>
          requestBytes(
            { operation: Operation.Register, client },
            JSON.stringify({ username: 'admin' }),
          ),
      ],
      [
        'a LOGOUT carries a body',
        () => requestBytes({ operation: Operation.Logout, client, session: 3, request: 1 }, '{}'),
      ],
      ['a PING carries session 1', () => requestBytes({ operation: Operation.Ping, session: 1 })],
      ['a PING carries a body', () => requestBytes({ operation: Operation.Ping }, '{}')],
      [
        'a COMMAND body is a JSON array',
        () =>
          requestBytes(
            { operation: Operation.Command, client, session: 3, request: 1 },
            JSON.stringify(['ledger.open', { account: 'x' }]),
          ),
      ],
      [
        'a COMMAND body is not valid UTF-8',
        () =>
          requestBytes(
            { operation: Operation.Command, client, session: 3, request: 1 },
            Buffer.concat([
              Buffer.from('{"pattern":"ledger.open","data":"'),
              Buffer.from([0xff, 0xfe]),
              Buffer.from('"}'),
            ]),
          ),
      ],
      [
        'a QUERY body has no "pattern"',
        () =>
          requestBytes(
            { operation: Operation.Query, client, session: 3 },
            JSON.stringify({ data: { account: 'x' } }),
          ),
      ],
      [
        'the command byte says REPLY (2) instead of REQUEST (1)',
        () => requestBytes({ command: Command.Reply, operation: Operation.Ping }),
      ],
      [
        'a request carries a non-zero status',
        () => requestBytes({ operation: Operation.Ping, status: 1 }),
      ],
      [
        'a request carries a non-zero reserved field (bytes 46..47)',
        () => {
          const frame = requestBytes({ operation: Operation.Ping });
          frame[Offset.reserved] = 1;
          return resealHeader(frame);
        },
      ],
    ];

    it.each(cases)(
      'when %s, then INVALID_REQUEST echoing the request, nothing is journaled, and the connection keeps serving',
      async (_cause, build) => {
        const connection = await connections.connect();
        const commit = await pingCommit(connection);
        const request = build();

        const reply = await sendAndNext(connection, request);

        expectAnswerTo(reply, request, {
          command: Command.Reply,
          status: Status.InvalidRequest,
          op: 0,
          commit,
        });
        expect(await pingCommit(connection)).toBe(commit);
      },
    );
  });

  describe('given status INVALID_REQUEST (3) on a bound connection', () => {
    it('when a bound connection sends a COMMAND under another client’s id (even with that client’s valid token), then INVALID_REQUEST; both sessions keep their next request number', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const otherConnection = await connections.connect();
      const other = await TestSession.open(otherConnection);
      const commit = await pingCommit(connection);

      const request = other.commandBytes('ledger.open', { account: accountName() });
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.InvalidRequest,
        op: 0,
        commit,
      });
      expect(await pingCommit(connection)).toBe(commit);
      const mine = await session.command('ledger.open', { account: accountName() });
      expect(mine.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
      const theirs = await other.command('ledger.open', { account: accountName() });
      expect(theirs.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
      await otherConnection.expectSilence(100);
    });

    it('when a valid session sends a COMMAND with request 0, then INVALID_REQUEST and request 1 is still the next one', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const commit = await pingCommit(connection);

      const request = session.commandBytes('ledger.open', { account: accountName() }, 0);
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.InvalidRequest,
        op: 0,
        commit,
      });
      expect(await pingCommit(connection)).toBe(commit);
      const first = await session.command('ledger.open', { account: accountName() });
      expect(first.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    });
  });

  describe('given status UNAUTHENTICATED (4)', () => {
    it.each([
      ['the admin’s password is wrong', 'admin', 'not-the-password'],
      ['the user does not exist', 'nobody', ADMIN_PASSWORD],
    ])(
      'when a REGISTER arrives and %s, then UNAUTHENTICATED, nothing is journaled and the connection stays unbound',
      async (_cause, username, password) => {
        const connection = await connections.connect();
        const commit = await pingCommit(connection);
        const client = randomClientId();
        const request = requestBytes(
          { operation: Operation.Register, client },
          JSON.stringify({ username, password }),
        );

        const reply = await sendAndNext(connection, request);

        expectAnswerTo(reply, request, {
          command: Command.Reply,
          status: Status.Unauthenticated,
          op: 0,
          commit,
        });
        expect(await pingCommit(connection)).toBe(commit);
        const query = requestBytes(
          { operation: Operation.Query, client, session: 1 },
          commandBody('ledger.balance', { account: 'x' }),
        );
        expect((await sendAndNext(connection, query)).header.status).toBe(Status.NotBound);
      },
    );
  });

  describe('given status NOT_BOUND (5)', () => {
    it('when an unbound connection sends the next COMMAND of a live session without a token, then NOT_BOUND, nothing is journaled, and the holder’s next request is still that number', async () => {
      const holder = await connections.connect();
      const session = await TestSession.open(holder);
      const connection = await connections.connect();
      const commit = await pingCommit(connection);

      const request = requestBytes(
        {
          operation: Operation.Command,
          client: session.client,
          session: session.epoch,
          request: 1,
        },
        commandBody('ledger.open', { account: accountName() }),
      );
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.NotBound,
        op: 0,
        commit,
      });
      expect(await pingCommit(connection)).toBe(commit);
      await holder.expectSilence(100);
      const first = await session.command('ledger.open', { account: accountName() });
      expect(first.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    });

    it('when an unbound connection sends a COMMAND with a wrong resume token, then NOT_BOUND with the same body as without one, and the holder is not superseded', async () => {
      const holder = await connections.connect();
      const session = await TestSession.open(holder);
      const connection = await connections.connect();
      const commit = await pingCommit(connection);
      const wrongToken = Buffer.from(session.token);
      wrongToken[0] ^= 0x01;
      const fields = {
        operation: Operation.Command,
        client: session.client,
        session: session.epoch,
        request: 1,
      };
      const body = commandBody('ledger.open', { account: accountName() });

      const withWrongToken = requestBytes({ ...fields, resumeToken: wrongToken }, body);
      const wrongReply = await sendAndNext(connection, withWrongToken);
      const withoutToken = requestBytes(fields, body);
      const absentReply = await sendAndNext(connection, withoutToken);

      expectAnswerTo(wrongReply, withWrongToken, {
        command: Command.Reply,
        status: Status.NotBound,
        op: 0,
        commit,
      });
      expect(wrongReply.body.equals(absentReply.body)).toBe(true);
      expect(await pingCommit(connection)).toBe(commit);
      await holder.expectSilence(100);
      const first = await session.command('ledger.open', { account: accountName() });
      expect(first.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    });

    it('when an unbound connection sends a QUERY of a live session, then NOT_BOUND', async () => {
      const holder = await connections.connect();
      const session = await TestSession.open(holder);
      const connection = await connections.connect();
      const commit = await pingCommit(connection);

      const query = session.queryBytes('ledger.balance', { account: 'any' });
      const reply = await sendAndNext(connection, query);

      expectAnswerTo(reply, query, {
        command: Command.Reply,
        status: Status.NotBound,
        op: 0,
        commit,
      });
    });
  });

  describe('given status CLIENT_OWNED_BY_OTHER_USER (6)', () => {
    it('when a second user REGISTERs a client id the admin’s session holds, then CLIENT_OWNED_BY_OTHER_USER, nothing is journaled, and the admin keeps the session', async () => {
      const adminConnection = await connections.connect();
      const admin = await TestSession.open(adminConnection);
      const username = accountName('user');
      const created = await admin.command('users.create', { username, password: 'second-pw' });
      expect(outcomeOf(created.reply)).toEqual({
        ok: true,
        result: { userId: expect.any(Number) },
      });
      const connection = await connections.connect();
      const commit = await pingCommit(connection);

      const request = requestBytes(
        { operation: Operation.Register, client: admin.client },
        JSON.stringify({ username, password: 'second-pw' }),
      );
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.ClientOwnedByOtherUser,
        op: 0,
        commit,
      });
      expect(await pingCommit(connection)).toBe(commit);
      await adminConnection.expectSilence(100);
      const next = await admin.command('ledger.open', { account: accountName() });
      expect(next.reply.header).toMatchObject({ status: Status.Ok, request: 2, watermark: 2 });
      // The second user's own client id registers fine.
      const own = await TestSession.open(connection, { username, password: 'second-pw' });
      expect(own.registration.userId).toBe(
        (outcomeOf(created.reply) as { result: { userId: number } }).result.userId,
      );
    });
  });

  describe('given status EPOCH_AHEAD (7)', () => {
    it('when a bound session sends a COMMAND under an epoch above the table’s, then EPOCH_AHEAD echoing that epoch, and request 1 is still the next one', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const commit = await pingCommit(connection);

      const request = session.commandBytes(
        'ledger.open',
        { account: accountName() },
        1,
        session.epoch + 1,
      );
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.EpochAhead,
        op: 0,
        commit,
      });
      expect(reply.header.session).toBe(session.epoch + 1);
      const first = await session.command('ledger.open', { account: accountName() });
      expect(first.reply.header).toMatchObject({ status: Status.Ok, request: 1, watermark: 1 });
    });
  });

  describe('given status REQUEST_GAP (8)', () => {
    it('when a session with watermark 1 sends request 3, then REQUEST_GAP with header watermark 1, and request 2 is admitted after it', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();
      await session.command('ledger.open', { account });
      const commit = await pingCommit(connection);

      const request = session.commandBytes('ledger.deposit', { account, amount: 1 }, 3);
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.RequestGap,
        op: 0,
        commit,
        watermark: 1,
      });
      expect(await pingCommit(connection)).toBe(commit);
      const second = await session.command('ledger.deposit', { account, amount: 2 });
      expect(second.reply.header).toMatchObject({ status: Status.Ok, request: 2, watermark: 2 });
      expect(outcomeOf(second.reply)).toEqual({ ok: true, result: { balance: 2 } });
    });
  });

  describe('given status REQUEST_CONFLICT (9)', () => {
    it('when a committed and cached request number is sent again with another body, then REQUEST_CONFLICT and the other body is not applied', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();
      const other = accountName();
      await session.command('ledger.open', { account });
      const commit = await pingCommit(connection);

      const request = session.commandBytes('ledger.open', { account: other }, 1);
      const reply = await sendAndNext(connection, request);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.RequestConflict,
        op: 0,
        commit,
      });
      expect(await pingCommit(connection)).toBe(commit);
      const balance = await sendAndNext(
        connection,
        session.queryBytes('ledger.balance', { account: other }),
      );
      expect(outcomeOf(balance)).toMatchObject({ ok: false, error: { code: 'ACCOUNT_NOT_FOUND' } });
    });

    it('when two frames with the same request number and different bodies are pipelined back to back, then the first is committed and answered OK and the second, still in flight, gets REQUEST_CONFLICT; nothing else arrives', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();
      await session.command('ledger.open', { account });

      const first = session.commandBytes('ledger.deposit', { account, amount: 5 }, 2);
      const second = session.commandBytes('ledger.deposit', { account, amount: 50 }, 2);
      connection.write(Buffer.concat([first, second]));
      const answers = await nextFrames(connection, 2);
      await connection.expectSilence(200);

      const ok = answers.find((frame) => (frame.header.status as Status) === Status.Ok);
      const conflict = answers.find(
        (frame) => (frame.header.status as Status) === Status.RequestConflict,
      );
      expect(ok).toBeDefined();
      expect(conflict).toBeDefined();
      expectAnswerTo(ok!, first, {
        command: Command.Reply,
        status: Status.Ok,
        op: ok!.header.op,
        commit: ok!.header.op,
        watermark: 2,
        replicated: true,
      });
      expect(outcomeOf(ok!)).toEqual({ ok: true, result: { balance: 5 } });
      expectAnswerTo(conflict!, second, {
        command: Command.Reply,
        status: Status.RequestConflict,
        op: 0,
      });
      const balance = await sendAndNext(
        connection,
        session.queryBytes('ledger.balance', { account }),
      );
      expect(outcomeOf(balance)).toEqual({ ok: true, result: { balance: 5 } });
    });
  });

  describe('given a retry of a replicated request', () => {
    it('when a committed request is sent again with the same bytes, on its connection and then on a new connection with the token, then each time the cached reply arrives byte for byte and nothing is applied twice', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();
      await session.command('ledger.open', { account });
      const deposit = await session.command('ledger.deposit', { account, amount: 3 });
      await session.command('ledger.deposit', { account, amount: 4 });
      const commit = await pingCommit(connection);

      const again = await sendAndNext(connection, deposit.request);
      expect(again.raw.equals(deposit.reply.raw)).toBe(true);
      expect(await pingCommit(connection)).toBe(commit);

      const elsewhere = await connections.connect();
      const fromElsewhere = await sendAndNext(elsewhere, deposit.request);
      expect(fromElsewhere.raw.equals(deposit.reply.raw)).toBe(true);

      const next = await session.command('ledger.deposit', { account, amount: 1 }, elsewhere);
      expect(next.reply.header).toMatchObject({ status: Status.Ok, request: 4, watermark: 4 });
      expect(outcomeOf(next.reply)).toEqual({ ok: true, result: { balance: 8 } });
    });

    it('when the same frame is sent twice back to back while the first is in flight, then exactly one reply arrives and the command applies once', async () => {
      const connection = await connections.connect();
      const session = await TestSession.open(connection);
      const account = accountName();
      await session.command('ledger.open', { account });

      const request = session.commandBytes('ledger.deposit', { account, amount: 9 }, 2);
      connection.write(Buffer.concat([request, request]));
      const reply = await connection.next();
      await connection.expectSilence(300);

      expectAnswerTo(reply, request, {
        command: Command.Reply,
        status: Status.Ok,
        op: reply.header.op,
        commit: reply.header.op,
        watermark: 2,
        replicated: true,
      });
      expect(outcomeOf(reply)).toEqual({ ok: true, result: { balance: 9 } });
      const balance = await sendAndNext(
        connection,
        session.queryBytes('ledger.balance', { account }),
      );
      expect(outcomeOf(balance)).toEqual({ ok: true, result: { balance: 9 } });
    });
  });
});

describe('given a node whose sessions cache only 2 replies (ONCE_RING=2)', () => {
  let service: ServiceProcess;
  let connections: Connections;

  beforeAll(async () => {
    service = await startService({ ONCE_RING: '2' });
    connections = new Connections(() => service.port);
  });
  afterAll(async () => {
    connections.destroyAll();
    await service.cleanup();
  });

  it('when a session committed requests 1..4 and retries request 1, then ALREADY_APPLIED with header watermark 4 (also under another body), while 3 and 4 are still answered from the cache byte for byte', async () => {
    const connection = await connections.connect();
    const session = await TestSession.open(connection);
    const account = accountName();
    const committed = [
      await session.command('ledger.open', { account }),
      await session.command('ledger.deposit', { account, amount: 1 }),
      await session.command('ledger.deposit', { account, amount: 2 }),
      await session.command('ledger.deposit', { account, amount: 3 }),
    ];
    const commit = await pingCommit(connection);

    for (const stale of [
      committed[0].request,
      committed[1].request,
      session.commandBytes('ledger.deposit', { account, amount: 1000 }, 1),
    ]) {
      const reply = await sendAndNext(connection, stale);
      expectAnswerTo(reply, stale, {
        command: Command.Reply,
        status: Status.AlreadyApplied,
        op: 0,
        commit,
        watermark: 4,
      });
    }
    for (const cached of committed.slice(2)) {
      const reply = await sendAndNext(connection, cached.request);
      expect(reply.raw.equals(cached.reply.raw)).toBe(true);
    }
    expect(await pingCommit(connection)).toBe(commit);
    const balance = await sendAndNext(
      connection,
      session.queryBytes('ledger.balance', { account }),
    );
    expect(outcomeOf(balance)).toEqual({ ok: true, result: { balance: 6 } });
  });
});

describe('given a node whose boot write cannot complete yet (in process)', () => {
  let dataRoot: string;
  let app: INestMicroservice | undefined;
  let releaseWrites: () => void = () => undefined;
  let port: number;
  const clients: RawClient[] = [];

  beforeAll(async () => {
    dataRoot = await mkdtemp(join(tmpdir(), 'once-not-ready-'));
    const writesMayGo = new Promise<void>((resolve) => {
      releaseWrites = resolve;
    });
    const strategy = new OnceServer({ port: 0 });
    app = await NestFactory.createMicroservice(
      AppModule.register(
        withJournalHooks(
          { dataDir: join(dataRoot, 'data'), genesis: adminGenesis(ADMIN_PASSWORD) },
          { beforeWrite: () => writesMayGo },
        ),
      ),
      { strategy, logger: false, abortOnError: false },
    );
    await app.listen();
    port = strategy.address()!.port;
  });
  afterAll(async () => {
    releaseWrites();
    for (const client of clients) client.destroy();
    await app?.close();
    await rm(dataRoot, { recursive: true, force: true });
  });

  it('when a client PINGs and REGISTERs before the node is ready, then PING says ready:false and REGISTER gets NOT_READY; once the write goes through, the same REGISTER frame succeeds', async () => {
    const connection = await RawClient.connect(port);
    clients.push(connection);
    const ping = requestBytes({ operation: Operation.Ping });
    const notReadyPing = await sendAndNext(connection, ping);
    expectAnswerTo(notReadyPing, ping, { command: Command.Reply, status: Status.Ok, op: 0 });
    expect(bodyJson(notReadyPing)).toEqual({
      version: 1,
      commit: notReadyPing.header.commit,
      ready: false,
      node: null,
      role: 'none',
      leader: null,
    });

    const register = requestBytes(
      { operation: Operation.Register, client: randomClientId() },
      JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    );
    const refused = await sendAndNext(connection, register);
    expectAnswerTo(refused, register, {
      command: Command.Reply,
      status: Status.NotReady,
      op: 0,
      commit: notReadyPing.header.commit,
    });

    releaseWrites();
    await app!.get(OnceRuntime).whenReady();

    const readyPing = await sendAndNext(connection, ping);
    expect(bodyJson(readyPing)).toEqual({
      version: 1,
      commit: readyPing.header.commit,
      ready: true,
      node: null,
      role: 'none',
      leader: null,
    });
    const accepted = await sendAndNext(connection, register);
    expectAnswerTo(accepted, register, {
      command: Command.Reply,
      status: Status.Ok,
      session: accepted.header.op,
      op: accepted.header.op,
      commit: accepted.header.op,
      watermark: 0,
      replicated: true,
    });
    expect(accepted.header.op).toBeGreaterThan(readyPing.header.commit);
    expect(accepted.header.resumeToken.equals(checksum(register.subarray(128)))).toBe(true);
  });
});

/** Writes `bytes` and returns the next frame the node sends on `connection`. */
function sendAndNext(connection: RawClient, bytes: Buffer) {
  connection.write(bytes);
  return connection.next();
}
