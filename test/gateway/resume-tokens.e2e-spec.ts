import {
  Command,
  EvictionReason,
  type Frame,
  Operation,
  Status,
  randomClientId,
} from '@once/protocol';
import { RawClient, type ServiceProcess, outcomeOf } from '@once/testing';
import {
  ADMIN_PASSWORD,
  type Session,
  commandOk,
  flipBit,
  queryResult,
  registerOk,
  startService,
} from '../support/sessions';

/**
 * Resume tokens: only the token the node minted for exactly (client, epoch)
 * lets an unbound connection act on a session; a wrong or missing token learns
 * nothing; an older epoch's token is fenced; client ids cannot be taken over
 * by another user; and the token outlives restarts of the node.
 */
describe('given sessions that hold resume tokens', () => {
  let service: ServiceProcess;
  const open: RawClient[] = [];
  const connect = async (): Promise<RawClient> => {
    const raw = await RawClient.connect(service.port);
    open.push(raw);
    return raw;
  };

  const account = 'tokens';
  const bobPassword = 'bob-secret';
  /** The admin's session under test, its holder connection and its next request number. */
  let owner: Session;
  let holder: RawClient;
  let next = 1;
  /** A session of another client (another user), for its token. */
  let other: Session;
  let otherRaw: RawClient;
  /** The owner's session before its second REGISTER: its token is valid but fenced. */
  let older: Session;
  /** The last reply the owner got, as sent. */
  let lastReply: Frame;

  const balance = async (): Promise<unknown> =>
    queryResult(holder, owner, 'ledger.balance', { account });

  beforeAll(async () => {
    service = await startService();
    holder = await connect();
    owner = (await registerOk(holder, randomClientId())).session;
    await commandOk(holder, owner, next++, 'ledger.open', { account });
    await commandOk(holder, owner, next++, 'users.create', {
      username: 'bob',
      password: bobPassword,
    });
    otherRaw = await connect();
    other = (await registerOk(otherRaw, randomClientId(), 'bob', bobPassword)).session;
  });
  afterAll(async () => {
    for (const raw of open.splice(0)) raw.destroy();
    await service.cleanup();
  });

  /** A deposit of 1000 on the owner's session from a fresh connection, with the given token. */
  const intrude = async (
    resumeToken: Buffer | undefined,
    session = owner.epoch,
  ): Promise<Frame> => {
    const stranger = await connect();
    return stranger.command(
      owner.client,
      session,
      next,
      'ledger.deposit',
      { account, amount: 1000 },
      resumeToken,
    );
  };

  it('when a connection sends a COMMAND without the token, with one bit of it flipped, with another client’s token, or for a session that does not exist, then each gets the same NOT_BOUND answer; a connection bound to another session gets INVALID_REQUEST; nothing is applied', async () => {
    const missing = await intrude(undefined);
    const flippedLow = await intrude(flipBit(owner.resumeToken, 0));
    const flippedHigh = await intrude(flipBit(owner.resumeToken, 127));
    const foreign = await intrude(other.resumeToken);
    const nowhere = await (
      await connect()
    ).command(
      randomClientId(),
      owner.epoch,
      1,
      'ledger.deposit',
      { account, amount: 1000 },
      owner.resumeToken,
    );

    for (const answer of [missing, flippedLow, flippedHigh, foreign, nowhere]) {
      expect(answer.header).toMatchObject({
        command: Command.Reply,
        operation: Operation.Command,
        status: Status.NotBound,
        op: 0,
        watermark: 0,
      });
      expect(answer.body).toHaveLength(missing.body.length);
      expect(answer.body.equals(missing.body)).toBe(true);
    }

    // A connection bound to another session cannot switch to this one, even with its valid token.
    const switched = await otherRaw.command(
      owner.client,
      owner.epoch,
      next,
      'ledger.deposit',
      { account, amount: 1000 },
      owner.resumeToken,
    );
    expect(switched.header).toMatchObject({
      command: Command.Reply,
      status: Status.InvalidRequest,
      client: owner.client,
    });

    // The number the intruders used is still the next one: none of them was admitted.
    const admitted = await commandOk(holder, owner, next++, 'ledger.deposit', {
      account,
      amount: 1,
    });
    expect(outcomeOf(admitted)).toEqual({ ok: true, result: { balance: 1 } });
    lastReply = admitted;
  });

  it('when another user REGISTERs the owned client id, then it gets CLIENT_OWNED_BY_OTHER_USER and the owner’s session, binding and cached replies are untouched', async () => {
    const lastNumber = next - 1;
    const lastBody = JSON.stringify({ pattern: 'ledger.deposit', data: { account, amount: 1 } });
    const bobs = await connect();
    const refused = await bobs.register(owner.client, 'bob', bobPassword);
    expect(refused.header).toMatchObject({
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.ClientOwnedByOtherUser,
      client: owner.client,
    });
    // Bob's connection got no session from it.
    const stillUnbound = await bobs.query(owner.client, owner.epoch, 'ledger.balance', {
      account,
    });
    expect(stillUnbound.header.status).toBe(Status.NotBound);

    // The owner's connection still holds the session, under the same epoch.
    const retried = await holder.request(
      {
        operation: Operation.Command,
        client: owner.client,
        session: owner.epoch,
        request: lastNumber,
      },
      lastBody,
    );
    expect(retried.header.request).toBe(lastNumber);
    expect(retried.raw.equals(lastReply.raw)).toBe(true);
    const after = await commandOk(holder, owner, next++, 'ledger.deposit', { account, amount: 1 });
    expect(after.header.session).toBe(owner.epoch);
    expect(await balance()).toEqual({ balance: 2 });
  });

  it('when the session is REGISTERed again, then a connection presenting the older epoch’s valid token is evicted with SESSION_TOO_LOW and nothing is applied', async () => {
    older = owner;
    owner = (await registerOk(holder, owner.client)).session;
    expect(owner.epoch).toBeGreaterThan(older.epoch);
    expect(owner.watermark).toBe(next - 1);

    const fenced = await intrude(older.resumeToken, older.epoch);
    expect(fenced.header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.SessionTooLow,
      client: owner.client,
      session: older.epoch,
      request: next,
      watermark: next - 1,
    });
    expect(await balance()).toEqual({ balance: 2 });
  });

  it('when the node is killed with SIGKILL twice, then the token still resumes the session by implicit rebind: the last reply is replayed byte for byte, the next number applies, and wrong or older tokens are still refused', async () => {
    const lastNumber = next;
    const lastFrame = await commandOk(holder, owner, next++, 'ledger.deposit', {
      account,
      amount: 1,
    });
    const lastBody = JSON.stringify({ pattern: 'ledger.deposit', data: { account, amount: 1 } });

    for (let round = 0; round < 2; round++) {
      await service.crash();
      await service.restart();

      const resumed = await connect();
      const retried = await resumed.request(
        {
          operation: Operation.Command,
          client: owner.client,
          session: owner.epoch,
          request: lastNumber,
          resumeToken: owner.resumeToken,
        },
        lastBody,
      );
      expect(retried.raw.equals(lastFrame.raw)).toBe(true);
      holder = resumed;
    }

    const applied = await commandOk(holder, owner, next++, 'ledger.deposit', {
      account,
      amount: 1,
    });
    expect(outcomeOf(applied)).toEqual({ ok: true, result: { balance: 4 } });
    expect(await balance()).toEqual({ balance: 4 });

    const wrong = await intrude(flipBit(owner.resumeToken, 64));
    expect(wrong.header).toMatchObject({ command: Command.Reply, status: Status.NotBound });
    const missing = await intrude(undefined);
    expect(wrong.body.equals(missing.body)).toBe(true);

    const foreign = await intrude(other.resumeToken);
    expect(foreign.header.status).toBe(Status.NotBound);

    const fenced = await intrude(older.resumeToken, older.epoch);
    expect(fenced.header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.SessionTooLow,
      client: owner.client,
      session: older.epoch,
    });
    expect(await balance()).toEqual({ balance: 4 });
  });

  it('when a connection is lost with a request still in flight and another connection resumes with the token and resends it, then the reply comes once, to the resuming connection, and the next number follows', async () => {
    const client = randomClientId();
    const lost = await connect();
    const session = (await registerOk(lost, client)).session;
    // users.changePassword is slow to admit (two scrypt hashes): it is in flight for a while.
    const change = JSON.stringify({
      pattern: 'users.changePassword',
      data: { currentPassword: ADMIN_PASSWORD, newPassword: ADMIN_PASSWORD },
    });
    const frame = {
      operation: Operation.Command,
      client,
      session: session.epoch,
      request: 1,
      resumeToken: session.resumeToken,
    };
    lost.send(frame, change);
    lost.close();

    const resumed = await connect();
    const reply = await resumed.request(frame, change);
    expect(reply.header).toMatchObject({
      command: Command.Reply,
      status: Status.Ok,
      client,
      session: session.epoch,
      request: 1,
      watermark: 1,
    });
    expect(outcomeOf(reply)).toEqual({ ok: true, result: {} });
    // The next frame on this connection answers request 2: request 1 was not answered twice.
    await commandOk(resumed, session, 2, 'ledger.open', { account: `${account}-in-flight` });
  });
});
