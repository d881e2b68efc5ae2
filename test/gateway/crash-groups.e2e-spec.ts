import { Operation, randomClientId } from '@once/protocol';
import { RawClient, type ServiceProcess, outcomeOf } from '@once/testing';
import {
  ADMIN_PASSWORD,
  type Session,
  commandOk,
  eventually,
  queryResult,
  registerOk,
  startService,
} from '../support/sessions';

/**
 * Connection-scoped state: a consumer-group membership lives as long as the
 * member's connection, is released by a journaled entry when the connection
 * closes, and is released at boot after a crash (so replay agrees); the
 * session itself outlives both.
 */
describe('given a stream, a member A of group g and an observer B', () => {
  let service: ServiceProcess;
  const open: RawClient[] = [];
  const connect = async (): Promise<RawClient> => {
    const raw = await RawClient.connect(service.port);
    open.push(raw);
    return raw;
  };

  const group = { stream: 'orders', group: 'g' };
  let a: Session;
  let aRaw: RawClient;
  let aNext = 1;
  let b: Session;
  let bRaw: RawClient;

  const members = async (): Promise<string[]> =>
    ((await queryResult(bRaw, b, 'groups.get', group)) as { members: string[] }).members;

  beforeAll(async () => {
    service = await startService();
    const adminRaw = await connect();
    const admin = (await registerOk(adminRaw, randomClientId())).session;
    await commandOk(adminRaw, admin, 1, 'streams.create', { name: group.stream });

    aRaw = await connect();
    a = (await registerOk(aRaw, randomClientId())).session;
    const joined = await commandOk(aRaw, a, aNext++, 'groups.join', group);
    expect(outcomeOf(joined)).toEqual({ ok: true, result: { members: [a.client] } });

    bRaw = await connect();
    b = (await registerOk(bRaw, randomClientId())).session;
  });
  afterAll(async () => {
    for (const raw of open.splice(0)) raw.destroy();
    await service.cleanup();
  });

  it('when B queries the group, then A is its only member', async () => {
    expect(await members()).toEqual([a.client]);
  });

  it('when A’s socket closes, then the membership is released, but A’s session survives: A resumes with its token and its next number is admitted', async () => {
    aRaw.destroy();
    await aRaw.whenClosed();
    expect(await eventually(members, (list) => list.length === 0)).toEqual([]);

    aRaw = await connect();
    const rejoined = await commandOk(aRaw, a, aNext++, 'groups.join', group);
    expect(rejoined.header.session).toBe(a.epoch);
    expect(outcomeOf(rejoined)).toEqual({ ok: true, result: { members: [a.client] } });
    expect(await members()).toEqual([a.client]);
  });

  it('when the node is killed with SIGKILL and restarted, then the group is empty (released at boot), also after another replay; A’s session resumes and can join again', async () => {
    await service.crash();
    await service.restart();

    bRaw = await connect();
    b = (await registerOk(bRaw, b.client)).session;
    expect(await members()).toEqual([]);

    // The release is in the journal: replaying it again gives the same state.
    await service.crash();
    await service.restart();
    // This time B resumes with its token (a COMMAND binds the connection), then queries.
    bRaw = await connect();
    await commandOk(bRaw, b, 1, 'ledger.open', { account: 'observer' });
    expect(await members()).toEqual([]);

    aRaw = await connect();
    const joined = await commandOk(aRaw, a, aNext++, 'groups.join', group);
    expect(joined.header.session).toBe(a.epoch);
    expect(outcomeOf(joined)).toEqual({ ok: true, result: { members: [a.client] } });
    expect(await members()).toEqual([a.client]);
  });

  it('when a join is admitted on a connection that closes before the join is journaled (held back by a slow admission of the same session), then the membership is still released', async () => {
    const other = { stream: group.stream, group: 'h' };
    const membersOfOther = async (): Promise<string[]> =>
      ((await queryResult(bRaw, b, 'groups.get', other)) as { members: string[] }).members;
    const client = randomClientId();
    const first = await connect();
    const c = (await registerOk(first, client)).session;
    // Request 1 takes two scrypt hashes to admit; the session's later admissions wait behind it.
    first.send(
      { operation: Operation.Command, client, session: c.epoch, request: 1 },
      JSON.stringify({
        pattern: 'users.changePassword',
        data: { currentPassword: ADMIN_PASSWORD, newPassword: ADMIN_PASSWORD },
      }),
    );
    // A second connection resumes the session with the join (request 2), then closes.
    const join = JSON.stringify({ pattern: 'groups.join', data: other });
    const joining = await connect();
    joining.send(
      {
        operation: Operation.Command,
        client,
        session: c.epoch,
        request: 2,
        resumeToken: c.resumeToken,
      },
      join,
    );
    joining.close();
    await joining.whenClosed();

    // Learn that the join committed: its retry (nothing new admitted here) gets its reply.
    // Request 1, if it commits while this connection holds the session, is answered here too.
    const watcher = await connect();
    watcher.send(
      {
        operation: Operation.Command,
        client,
        session: c.epoch,
        request: 2,
        resumeToken: c.resumeToken,
      },
      join,
    );
    let joined = await watcher.next();
    if (joined.header.request === 1) {
      expect(joined.header.status).toBe(0);
      joined = await watcher.next();
    }
    expect(joined.header).toMatchObject({ status: 0, request: 2 });
    expect(outcomeOf(joined)).toEqual({ ok: true, result: { members: [client] } });
    watcher.close();
    first.close();
    await Promise.all([watcher.whenClosed(), first.whenClosed()]);

    // No connection of the session is left: what it held while connected is released.
    expect(await eventually(membersOfOther, (list) => list.length === 0)).toEqual([]);
  });
});
