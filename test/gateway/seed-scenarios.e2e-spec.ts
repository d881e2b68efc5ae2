import { Command, Operation, Status, randomClientId } from '@once/protocol';
import { RawClient, ServiceProcess, outcomeOf, registrationOf } from '@once/testing';

/**
 * The two scenarios of the seed commit: a client that loses the node to a
 * crash keeps its identity, and (a) a retry of a committed request is answered
 * from the cache, (b) the next request number is admitted and applied once.
 */
describe('given a committed request and a node killed with SIGKILL', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: 'pw' } });
  });
  afterAll(() => service.cleanup());

  it('when the client resends the same frame under its old identity, then it gets the identical reply bytes; and the next request applies once', async () => {
    const client = randomClientId();
    const first = await RawClient.connect(service.port);
    const registered = registrationOf(await first.register(client, 'admin', 'pw'));
    const open = await first.command(
      client,
      registered.epoch,
      1,
      'ledger.open',
      { account: 'acc' },
      registered.resumeToken,
    );
    expect(outcomeOf(open)).toEqual({ ok: true, result: { account: 'acc', balance: 0 } });
    const depositFrame = {
      operation: Operation.Command,
      client,
      session: registered.epoch,
      request: 2,
      resumeToken: registered.resumeToken,
    };
    const depositBody = JSON.stringify({
      pattern: 'ledger.deposit',
      data: { account: 'acc', amount: 5 },
    });
    const reply = await first.request(depositFrame, depositBody);
    expect(reply.header).toMatchObject({
      command: Command.Reply,
      status: Status.Ok,
      request: 2,
      watermark: 2,
    });

    await service.crash();
    await service.restart();

    const second = await RawClient.connect(service.port);
    const retried = await second.request(depositFrame, depositBody);
    expect(retried.raw.equals(reply.raw)).toBe(true);

    const next = await second.command(client, registered.epoch, 3, 'ledger.deposit', {
      account: 'acc',
      amount: 1,
    });
    expect(next.header).toMatchObject({ status: Status.Ok, request: 3, watermark: 3 });
    expect(outcomeOf(next)).toEqual({ ok: true, result: { balance: 6 } });
    const balance = await second.query(client, registered.epoch, 'ledger.balance', {
      account: 'acc',
    });
    expect(outcomeOf(balance)).toEqual({ ok: true, result: { balance: 6 } });
    first.destroy();
    second.destroy();
  });
});
