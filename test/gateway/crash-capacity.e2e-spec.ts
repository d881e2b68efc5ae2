import { Command, EvictionReason, type Frame, Operation, randomClientId } from '@once/protocol';
import { RawClient, type ServiceProcess } from '@once/testing';
import { type Session, commandOk, registerOk, startService } from '../support/sessions';

/**
 * Capacity eviction is a function of the log: with ONCE_CLIENTS_MAX=2 the
 * same session is gone before and after a SIGKILL and replay, and the victim
 * of a later REGISTER is the session with the oldest last commit (not the
 * oldest registration).
 */
describe('given a client table of capacity 2 and three clients', () => {
  let service: ServiceProcess;
  const open: RawClient[] = [];
  const connect = async (): Promise<RawClient> => {
    const raw = await RawClient.connect(service.port);
    open.push(raw);
    return raw;
  };

  interface Client {
    session: Session;
    account: string;
    /** The last committed request: its number, body and reply as first sent. */
    last: { request: number; body: string; reply?: Frame };
  }
  const clients: Client[] = [];

  /** Commits one more request of `client`, on `raw`. */
  const commit = async (raw: RawClient, client: Client, pattern: string, data: unknown) => {
    const request = client.last.request + 1;
    const reply = await commandOk(raw, client.session, request, pattern, data);
    client.last = { request, body: JSON.stringify({ pattern, data }), reply };
  };

  /** Resends the client's last committed request from an unbound connection, with its token. */
  const resendLast = (raw: RawClient, client: Client): Promise<Frame> =>
    raw.request(
      {
        operation: Operation.Command,
        client: client.session.client,
        session: client.session.epoch,
        request: client.last.request,
        resumeToken: client.session.resumeToken,
      },
      client.last.body,
    );

  beforeAll(async () => {
    service = await startService({ ONCE_CLIENTS_MAX: '2' });
  });
  afterAll(async () => {
    for (const raw of open.splice(0)) raw.destroy();
    await service.cleanup();
  });

  it('when c3 registers, then c1 (the oldest last commit) is evicted and told so; c2 stays', async () => {
    const connections: RawClient[] = [];
    for (const name of ['c1', 'c2']) {
      const raw = await connect();
      const session = (await registerOk(raw, randomClientId())).session;
      const client: Client = {
        session,
        account: `capacity-${name}`,
        last: { request: 0, body: '' },
      };
      await commit(raw, client, 'ledger.open', { account: client.account });
      clients.push(client);
      connections.push(raw);
    }
    const [c1, c2] = clients;

    const c3raw = await connect();
    const c3: Client = {
      session: (await registerOk(c3raw, randomClientId())).session,
      account: 'capacity-c3',
      last: { request: 0, body: '' },
    };
    clients.push(c3);

    const evicted = await connections[0].next();
    expect(evicted.header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.Evicted,
      client: c1.session.client,
      session: c1.session.epoch,
    });

    // c3 commits, then c2 commits after it: c3 now has the oldest last commit.
    await commit(c3raw, c3, 'ledger.open', { account: c3.account });
    await commit(connections[1], c2, 'ledger.deposit', { account: c2.account, amount: 1 });
  });

  it('when the node is killed with SIGKILL and restarted, then c1 has no session, and c2 and c3 resume with their tokens and get their last replies byte for byte', async () => {
    const [c1, c2, c3] = clients;
    await service.crash();
    await service.restart();

    const c1raw = await connect();
    const gone = await c1raw.command(
      c1.session.client,
      c1.session.epoch,
      c1.last.request + 1,
      'ledger.deposit',
      { account: c1.account, amount: 1 },
      c1.session.resumeToken,
    );
    expect(gone.header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.NoSession,
      client: c1.session.client,
      session: c1.session.epoch,
    });

    for (const client of [c2, c3]) {
      const raw = await connect();
      const retried = await resendLast(raw, client);
      expect(retried.raw.equals(client.last.reply!.raw)).toBe(true);
    }
  });

  it('when a fourth client registers after the restart, then exactly c3 (oldest last commit, though registered after c2) is evicted; c2 goes on', async () => {
    const [, c2, c3] = clients;
    const c2raw = await connect();
    const c3raw = await connect();
    expect((await resendLast(c2raw, c2)).raw.equals(c2.last.reply!.raw)).toBe(true);
    expect((await resendLast(c3raw, c3)).raw.equals(c3.last.reply!.raw)).toBe(true);

    const c4raw = await connect();
    const c4 = (await registerOk(c4raw, randomClientId())).session;
    expect(c4.watermark).toBe(0);

    const evicted = await c3raw.next();
    expect(evicted.header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.Evicted,
      client: c3.session.client,
      session: c3.session.epoch,
    });
    const again = await connect();
    const gone = await resendLast(again, c3);
    expect(gone.header).toMatchObject({
      command: Command.Eviction,
      status: EvictionReason.NoSession,
      client: c3.session.client,
    });

    // c2's connection was not told anything, and its next number applies.
    await commit(c2raw, c2, 'ledger.deposit', { account: c2.account, amount: 1 });
    expect(c2.last.reply!.header.request).toBe(3);
  });
});
