import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClientProxy } from '@nestjs/microservices';
import { OnceRuntime, OnceRpcContext } from '@once/framework';
import { type ClientId, Status, randomClientId } from '@once/protocol';
import { CommandRefusedError, OnceClient } from '@once/sdk';
import {
  outcomeOf,
  RawClient,
  registrationOf,
  ServiceProcess,
  TcpProxy,
  eventually,
} from '@once/testing';
import { firstValueFrom } from 'rxjs';
import { OrdersAudit } from '../fixtures/orders/orders-audit';
import { type Order } from '../fixtures/orders/orders.state';
import { LEDGER } from './support/ledger-http.controller';
import {
  type HybridApp,
  type HybridAppOptions,
  LEDGER_VIA_PROXY,
  USERS,
  startHybridApp,
} from './support/hybrid-app';

const LEDGER_PASSWORD = 'pw';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface HttpAnswer {
  status: number;
  body: unknown;
}

/** A request of the raw session, and the reply it got the first time (bytes copied). */
interface Sent {
  request: number;
  pattern: string;
  data: unknown;
  reply: Buffer;
}

describe('given a hybrid NestJS app (express + the once gateway) with a team module and a ledger ClientProxy', () => {
  let service: ServiceProcess;
  let proxy: TcpProxy;
  let root: string;
  let options: HybridAppOptions;
  let hybrid: HybridApp | undefined;

  beforeAll(async () => {
    service = await ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: LEDGER_PASSWORD } });
    proxy = await TcpProxy.start({ targetPort: service.port });
    root = await mkdtemp(join(tmpdir(), 'once-hybrid-'));
    options = {
      dataDir: join(root, 'data'),
      ledgerPort: service.port,
      ledgerPassword: LEDGER_PASSWORD,
      ledgerProxyPort: proxy.port,
    };
    hybrid = await startHybridApp(options);
  });
  afterAll(async () => {
    await hybrid?.app.close();
    await proxy?.close();
    await service?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const app = () => hybrid!.app;

  async function http(method: 'GET' | 'POST', path: string, body?: unknown): Promise<HttpAnswer> {
    const response = await fetch(`${hybrid!.httpUrl}${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  describe('when HTTP handlers call the reference service through OnceClientProxy', () => {
    it('then an account is opened, funded and read, and a refusal is a 4xx carrying the handler code', async () => {
      expect(await http('POST', '/accounts', { account: 'acme' })).toEqual({
        status: 201,
        body: { account: 'acme', balance: 0 },
      });
      expect(await http('POST', '/deposit', { account: 'acme', amount: 100 })).toEqual({
        status: 201,
        body: { balance: 100 },
      });
      expect(await http('POST', '/deposit', { account: 'ghost', amount: 5 })).toEqual({
        status: 404,
        body: { code: 'ACCOUNT_NOT_FOUND', message: 'no account "ghost"' },
      });
      expect(await http('POST', '/accounts', { account: 'acme' })).toMatchObject({
        status: 409,
        body: { code: 'ACCOUNT_EXISTS' },
      });
      expect(await http('GET', '/balance/acme')).toEqual({ status: 200, body: { balance: 100 } });
      expect(await http('GET', '/balance/ghost')).toMatchObject({
        status: 404,
        body: { code: 'ACCOUNT_NOT_FOUND' },
      });
    });

    it('then ClientProxy.send of a refused command errors with CommandRefusedError and the handler code', async () => {
      const ledger = app().get<ClientProxy>(LEDGER);
      const refused = firstValueFrom(
        ledger.send('ledger.deposit', { account: 'ghost', amount: 1 }),
      );
      await expect(refused).rejects.toBeInstanceOf(CommandRefusedError);
      await expect(refused).rejects.toMatchObject({
        code: 'ACCOUNT_NOT_FOUND',
        pattern: 'ledger.deposit',
      });
      await expect(
        firstValueFrom(ledger.send({ query: 'ledger.balance' }, { account: 'acme' })),
      ).resolves.toEqual({ balance: 100 });
    });

    it('then across a SIGKILL and restart of the service between two HTTP calls, the next call succeeds and nothing is applied twice', async () => {
      const viaProxy = app().get<ClientProxy>(LEDGER_VIA_PROXY);
      const session = () => app().get<ClientProxy>(LEDGER).unwrap<OnceClient>().identity;
      const before = session();
      // The proxied client binds its session before the crash.
      await expect(
        firstValueFrom(viaProxy.send('ledger.balance', { account: 'acme' })),
      ).resolves.toEqual({ balance: 100 });

      expect(await http('POST', '/deposit', { account: 'acme', amount: 25 })).toEqual({
        status: 201,
        body: { balance: 125 },
      });

      // A deposit committed by the service whose reply never reaches the client.
      proxy.setMode('toClient', 'hold');
      const inDoubt = firstValueFrom(
        viaProxy.send('ledger.deposit', { account: 'acme', amount: 7 }),
      );
      await eventually(() => proxy.heldBytes('toClient') > 0, 'the in-doubt deposit committed');
      await service.crash();
      proxy.cut();
      proxy.setMode('toClient', 'forward');
      await service.restart();

      // The next HTTP call: the proxy's SDK reconnects and resumes its session.
      expect(await http('POST', '/deposit', { account: 'acme', amount: 10 })).toEqual({
        status: 201,
        body: { balance: 142 },
      });
      // The in-doubt deposit was resent under its number: answered once, applied once.
      await expect(inDoubt).resolves.toEqual({ balance: 132 });
      expect(await http('GET', '/balance/acme')).toEqual({ status: 200, body: { balance: 142 } });
      // The same session went on: its numbering continued after the restart.
      expect(session()).toMatchObject({
        clientId: before.clientId,
        nextRequest: before.nextRequest + 2,
      });
    });
  });

  describe("when a client uses the hybrid app's own once gateway", () => {
    let alice: OnceClient;
    let raw: RawClient;
    let rawSession: { client: ClientId; epoch: number; resumeToken: Buffer };
    const sent: Sent[] = [];
    const audit = () => app().get(OrdersAudit);

    beforeAll(async () => {
      alice = await OnceClient.connect({
        port: hybrid!.oncePort,
        username: 'alice',
        password: USERS.alice,
      });
      raw = await RawClient.connect(hybrid!.oncePort);
      const client = randomClientId();
      const registration = registrationOf(await raw.register(client, 'alice', USERS.alice));
      expect(registration.userId).toBe(1);
      rawSession = { client, ...registration };
    });
    afterAll(async () => {
      await alice?.close();
      raw?.destroy();
    });

    /** Sends the next numbered COMMAND of the raw session, then the same number again. */
    async function commandTwice(pattern: string, data: unknown) {
      const request = sent.length + 1;
      const { client, epoch } = rawSession;
      const first = await raw.command(client, epoch, request, pattern, data);
      const retry = await raw.command(client, epoch, request, pattern, data);
      sent.push({ request, pattern, data, reply: Buffer.from(first.raw) });
      return { first, retry };
    }

    async function journaled(op: number): Promise<unknown> {
      for await (const batch of app().get(OnceRuntime).journal.readBatches(op, 1)) {
        return JSON.parse(batch[0].body.toString('utf8'));
      }
      throw new Error(`no journal entry at op ${op}`);
    }

    it.each([
      [
        'a team guard (@UseGuards) returns false',
        'orders.place',
        { item: 'Contraband', quantity: 1, tenant: 'acme' },
        'FORBIDDEN',
      ],
      [
        'a payload pipe (@Payload(pipe)) throws an RpcException',
        'orders.place',
        { item: 'bolt', quantity: 0, tenant: 'acme' },
        'INVALID_QUANTITY',
      ],
      [
        "a payload pipe throws the framework's CommandError",
        'orders.place',
        { item: '   ', quantity: 1, tenant: 'acme' },
        'INVALID_ITEM',
      ],
      [
        'ParseIntPipe on a payload key throws (its exceptionFactory)',
        'orders.cancel',
        { seq: 'abc' },
        'INVALID_SEQ',
      ],
      [
        "a guard throws the team's exception and the @UseFilters filter maps it",
        'orders.place',
        { item: 'bolt', quantity: 1 },
        'TENANT_REQUIRED',
      ],
      [
        'the global guard ({ provide: APP_GUARD, useClass }) refuses',
        'orders.place',
        { item: 'bolt', quantity: 1, tenant: 'suspended' },
        'TENANT_SUSPENDED',
      ],
    ])(
      'when %s at admission, then the refusal is committed with its code and a retry of its number gets the same bytes',
      async (_what, pattern, data, code) => {
        const admissions = audit().admissions.length;
        const { first, retry } = await commandTwice(pattern, data);
        expect(first.header).toMatchObject({
          status: Status.Ok,
          request: sent.length,
          watermark: sent.length,
        });
        expect(outcomeOf(first)).toMatchObject({ ok: false, error: { code } });
        expect(retry.raw.equals(first.raw)).toBe(true);
        expect(audit().admissions.length).toBe(admissions); // the interceptor saw no admission
      },
    );

    it('when the SDK sends a command a guard refuses, then it rejects with CommandRefusedError FORBIDDEN', async () => {
      const refused = alice.command('orders.place', {
        item: 'CONTRABAND',
        quantity: 2,
        tenant: 'acme',
      });
      await expect(refused).rejects.toBeInstanceOf(CommandRefusedError);
      await expect(refused).rejects.toMatchObject({ code: 'FORBIDDEN', pattern: 'orders.place' });
    });

    it("when an order passes admission, then the pipe's and the @Admit step's output is what is journaled and applied", async () => {
      const placed = await alice.command<Order>('orders.place', {
        item: '  Widget ',
        quantity: 3,
        tenant: 'acme',
        note: 'dropped by the pipe',
      });
      expect(placed).toEqual({
        seq: expect.any(Number),
        orderId: expect.stringMatching(UUID),
        item: 'widget',
        quantity: 3,
        tenant: 'acme',
        placedBy: 1,
        op: expect.any(Number),
        status: 'placed',
      });
      expect(await journaled(placed.op)).toEqual({
        pattern: 'orders.place',
        data: { item: 'widget', quantity: 3, tenant: 'acme', orderId: placed.orderId },
      });
    });

    it('when ParseIntPipe parses a payload key of a command, then apply sees the number', async () => {
      const placed = await alice.command<Order>('orders.place', {
        item: 'gear',
        quantity: 1,
        tenant: 'acme',
      });
      await expect(alice.command('orders.cancel', { seq: String(placed.seq) })).resolves.toEqual({
        seq: placed.seq,
        status: 'cancelled',
      });
      await expect(alice.query('orders.get', { seq: placed.seq })).resolves.toMatchObject({
        seq: placed.seq,
        status: 'cancelled',
      });
    });

    it('when a command is admitted and then retried under its number, then the interceptor saw it once and the reply is the apply result', async () => {
      const before = audit().admissions.length;
      const { first, retry } = await commandTwice('orders.place', {
        item: 'Nut',
        quantity: 2,
        tenant: 'acme',
      });
      expect(retry.raw.equals(first.raw)).toBe(true);
      expect(audit().admissions.slice(before)).toEqual([
        { pattern: 'orders.place', userId: 1, data: { item: 'Nut', quantity: 2, tenant: 'acme' } },
      ]);
      const outcome = outcomeOf(first);
      expect(outcome).toMatchObject({
        ok: true,
        result: { item: 'nut', quantity: 2, placedBy: 1 },
      });
      const { seq } = (outcome as { result: Order }).result;
      const { viewer: _viewer, ...stored } = await alice.query<Order & { viewer: number }>(
        'orders.get',
        { seq },
      );
      expect(outcome).toEqual({ ok: true, result: stored });
    });

    it('when queries run, then their guard and key pipe run and @Ctx() is the OnceRpcContext of the caller', async () => {
      const placed = await alice.command<Order>('orders.place', {
        item: 'washer',
        quantity: 9,
        tenant: 'acme',
      });
      await expect(alice.query('orders.get', { seq: String(placed.seq) })).resolves.toEqual({
        ...placed,
        viewer: 1,
      });
      const context = audit().reads.at(-1)?.context;
      expect(context).toBeInstanceOf(OnceRpcContext);
      expect((context as OnceRpcContext).getUserId()).toBe(1);
      expect((context as OnceRpcContext).getPattern()).toBe('orders.get');

      const bob = await OnceClient.connect({
        port: hybrid!.oncePort,
        username: 'bob',
        password: USERS.bob,
      });
      try {
        const forbidden = bob.query('orders.get', { seq: placed.seq });
        await expect(forbidden).rejects.toBeInstanceOf(CommandRefusedError);
        await expect(forbidden).rejects.toMatchObject({ code: 'FORBIDDEN' });
      } finally {
        await bob.close();
      }
      await expect(alice.query('orders.get', { seq: 9999 })).rejects.toMatchObject({
        code: 'ORDER_NOT_FOUND',
      });
    });

    describe('when the app is closed and built again on the same data directory', () => {
      let before: Order[];

      beforeAll(async () => {
        before = await alice.query<Order[]>('orders.all', {});
        await alice.close();
        raw.destroy();
        await hybrid!.app.close();
        hybrid = undefined;
        hybrid = await startHybridApp(options);
        alice = await OnceClient.connect({
          port: hybrid.oncePort,
          username: 'alice',
          password: USERS.alice,
        });
      });

      it('then the orders state is rebuilt (the query answers the same)', async () => {
        expect(before.length).toBeGreaterThan(0);
        await expect(alice.query('orders.all', {})).resolves.toEqual(before);
      });

      it('then a retry of every pre-restart request number through RawClient gets the same reply bytes', async () => {
        expect(sent.length).toBeGreaterThan(0);
        const again = await RawClient.connect(hybrid!.oncePort);
        try {
          const { client, epoch, resumeToken } = rawSession;
          for (const { request, pattern, data, reply } of sent) {
            const retried = await again.command(client, epoch, request, pattern, data, resumeToken);
            expect({ request, bytes: retried.raw.toString('hex') }).toEqual({
              request,
              bytes: reply.toString('hex'),
            });
          }
        } finally {
          again.destroy();
        }
      });

      it('then, after a stop that leaves no snapshot (as a crash would), replaying the journal rebuilds the same orders', async () => {
        const placed = await alice.command<Order>('orders.place', {
          item: 'Rivet',
          quantity: 4,
          tenant: 'acme',
        });
        const all = await alice.query<Order[]>('orders.all', {});
        expect(all).toContainEqual(placed);
        await alice.close();
        await hybrid!.app.get(OnceRuntime).node.stop({ snapshot: false });
        await hybrid!.app.close();
        hybrid = undefined;
        hybrid = await startHybridApp(options);
        alice = await OnceClient.connect({
          port: hybrid.oncePort,
          username: 'alice',
          password: USERS.alice,
        });
        // The random id the @Admit step drew is read back from the journal, not drawn again.
        await expect(alice.query('orders.all', {})).resolves.toEqual(all);
      });
    });
  });

  describe('given another hybrid app on its own data directory', () => {
    const start = (name: string, overrides: Partial<HybridAppOptions>) =>
      startHybridApp({
        dataDir: join(root, name),
        ledgerPort: service.port,
        ledgerPassword: LEDGER_PASSWORD,
        ...overrides,
      });
    const connectAlice = (port: number) =>
      OnceClient.connect({ port, username: 'alice', password: USERS.alice });

    it('when it calls startAllMicroservices() before listen() (the order of the NestJS docs), then the once gateway starts and serves', async () => {
      const other = await start('docs-order', { startOrder: 'microservices-first' });
      try {
        const alice = await connectAlice(other.oncePort);
        await expect(
          alice.command('orders.place', { item: 'Bolt', quantity: 1, tenant: 'acme' }),
        ).resolves.toMatchObject({ item: 'bolt', placedBy: 1 });
        await alice.close();
      } finally {
        await other.app.close();
      }
    });

    describe('when connectMicroservice is called without inheritAppConfig (as in the OnceServer docs)', () => {
      let other: HybridApp;
      let alice: OnceClient;
      beforeAll(async () => {
        other = await start('no-inherit', { inheritAppConfig: false });
        alice = await connectAlice(other.oncePort);
      });
      afterAll(async () => {
        await alice?.close();
        await other?.app.close();
      });

      it('then a CommandError thrown by a payload pipe is committed with its code', async () => {
        await expect(
          alice.command('orders.place', { item: ' ', quantity: 1, tenant: 'acme' }),
        ).rejects.toMatchObject({
          code: 'INVALID_ITEM',
          message: 'item must be a non-empty string',
        });
      });

      it('then a CommandError thrown by a query handler is answered with its code', async () => {
        await expect(alice.query('orders.get', { seq: 1 })).rejects.toMatchObject({
          code: 'ORDER_NOT_FOUND',
          message: 'no order 1',
        });
      });

      it("then the module's own enhancers still run at admission (guard, filter, RpcException pipe)", async () => {
        await expect(
          alice.command('orders.place', { item: 'contraband', quantity: 1, tenant: 'acme' }),
        ).rejects.toMatchObject({ code: 'FORBIDDEN' });
        await expect(
          alice.command('orders.place', { item: 'bolt', quantity: 1 }),
        ).rejects.toMatchObject({ code: 'TENANT_REQUIRED' });
        await expect(
          alice.command('orders.place', { item: 'bolt', quantity: -1, tenant: 'acme' }),
        ).rejects.toMatchObject({ code: 'INVALID_QUANTITY' });
      });
    });
  });
});
