import { firstValueFrom, toArray } from 'rxjs';
import {
  ClientClosedError,
  CommandRefusedError,
  type OnceClientEvent,
  OnceClient,
  UnauthenticatedError,
} from '@once/sdk';
import { RawClient, ServiceProcess, registrationOf } from '@once/testing';

const PASSWORD = 'pw';

describe('given a running once service', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: PASSWORD } });
  });
  afterAll(() => service.cleanup());

  const connect = () =>
    OnceClient.connect({ port: service.port, username: 'admin', password: PASSWORD });

  it('when a client sends commands and queries, then it gets their results and numbers them from 1', async () => {
    const client = await connect();
    try {
      expect(client.identity).toMatchObject({ nextRequest: 1, watermark: 0, userId: 1 });
      expect(client.identity.epoch).toBeGreaterThan(0);
      await expect(client.command('ledger.open', { account: 'basics' })).resolves.toEqual({
        account: 'basics',
        balance: 0,
      });
      await expect(
        client.command('ledger.deposit', { account: 'basics', amount: 7 }),
      ).resolves.toEqual({ balance: 7 });
      await expect(client.query('ledger.balance', { account: 'basics' })).resolves.toEqual({
        balance: 7,
      });
      expect(client.identity).toMatchObject({ nextRequest: 3, watermark: 2 });
      await expect(client.recovered).resolves.toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('when commands are pipelined, then each resolves with its own result in request order', async () => {
    const client = await connect();
    try {
      await client.command('ledger.open', { account: 'pipelined' });
      const results = await Promise.all(
        Array.from({ length: 40 }, () =>
          client.command<{ balance: number }>('ledger.deposit', {
            account: 'pipelined',
            amount: 1,
          }),
        ),
      );
      expect(results.map((result) => result.balance)).toEqual(
        Array.from({ length: 40 }, (_, index) => index + 1),
      );
      expect(client.identity.nextRequest).toBe(42);
    } finally {
      await client.close();
    }
  });

  it('when the handler refuses, then the promise rejects with CommandRefusedError carrying its code', async () => {
    const client = await connect();
    try {
      const refused = await client
        .command('ledger.deposit', { account: 'nowhere', amount: 1 })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CommandRefusedError);
      expect(refused).toMatchObject({ code: 'ACCOUNT_NOT_FOUND', pattern: 'ledger.deposit' });
      await expect(client.command('no.such.pattern', {})).rejects.toMatchObject({
        code: 'UNKNOWN_PATTERN',
      });
      await expect(client.query('ledger.balance', { account: 'nowhere' })).rejects.toMatchObject({
        code: 'ACCOUNT_NOT_FOUND',
      });
      // A refusal is committed: it used request numbers 1 and 2.
      expect(client.identity.watermark).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('when command$ and query$ are subscribed, then each subscription sends once and emits the result', async () => {
    const client = await connect();
    try {
      await client.command('ledger.open', { account: 'observed' });
      const deposit$ = client.command$<{ balance: number }>('ledger.deposit', {
        account: 'observed',
        amount: 2,
      });
      expect(client.identity.nextRequest).toBe(2); // cold: nothing sent yet
      await expect(firstValueFrom(deposit$)).resolves.toEqual({ balance: 2 });
      await expect(firstValueFrom(deposit$)).resolves.toEqual({ balance: 4 });
      await expect(
        firstValueFrom(client.query$('ledger.balance', { account: 'observed' })),
      ).resolves.toEqual({ balance: 4 });
    } finally {
      await client.close();
    }
  });

  it('when a client asks for the pattern catalogue, then it gets the @Command and @Query patterns, and sending a @Query as a command is refused as QUERY_PATTERN', async () => {
    const client = await connect();
    try {
      const { commands, queries } = await client.patterns();
      expect(commands).toEqual(expect.arrayContaining(['ledger.open', 'ledger.deposit']));
      expect(queries).toEqual(expect.arrayContaining(['ledger.balance']));
      expect(commands).not.toContain('ledger.balance');
      expect([...commands].sort()).toEqual(commands);
      const before = client.identity.nextRequest;
      await expect(client.command('ledger.balance', { account: 'x' })).rejects.toMatchObject({
        name: 'CommandRefusedError',
        code: 'QUERY_PATTERN',
        message:
          '"ledger.balance" is a @Query; send it as a QUERY (OnceClientProxy discovers queries from the node)',
      });
      // A committed refusal: the request number is used.
      expect(client.identity.nextRequest).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  it('when the credentials are wrong, then connect rejects with UnauthenticatedError', async () => {
    const failure = await OnceClient.connect({
      port: service.port,
      username: 'admin',
      password: 'wrong',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnauthenticatedError);
    expect(failure).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('when a client closes with logout, then its session is gone, it refuses new work, and a new client starts afresh', async () => {
    const client = await connect();
    const events = firstValueFrom(client.events$.pipe(toArray()));
    await client.command('ledger.open', { account: 'logout' });
    const { clientId, epoch } = client.identity;

    await client.close({ logout: true });

    await expect(events).resolves.toEqual([] as OnceClientEvent[]);
    await expect(
      client.command('ledger.deposit', { account: 'logout', amount: 1 }),
    ).rejects.toBeInstanceOf(ClientClosedError);
    // The entry is gone: a REGISTER of the same client id makes a new one (watermark 0),
    // where a live session would have kept the watermark of its `ledger.open`.
    const raw = await RawClient.connect(service.port);
    try {
      const registered = registrationOf(await raw.register(clientId, 'admin', PASSWORD));
      expect(registered.watermark).toBe(0);
      expect(registered.epoch).toBeGreaterThan(epoch);
    } finally {
      raw.destroy();
    }

    const next = await connect();
    try {
      expect(next.identity.clientId).not.toBe(clientId);
      expect(next.identity.nextRequest).toBe(1);
      await expect(
        next.command('ledger.deposit', { account: 'logout', amount: 1 }),
      ).resolves.toEqual({ balance: 1 });
    } finally {
      await next.close({ logout: true });
    }
  });
});
