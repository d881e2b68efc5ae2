import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HandlerDiscoveryError, OnceRuntime, ForeignHandlerError } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { NestFactory } from '@nestjs/core';
import { type Frame } from '@once/protocol';
import { CommandRefusedError } from '@once/sdk';
import { RawClient, TcpProxy, eventually, outcomeOf } from '@once/testing';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import {
  AsyncSumController,
  NotificationsController,
  RefusingController,
  onceModuleWith,
  startHybridNotifications,
} from './support/bootstrap-modules';
import {
  type ContractService,
  RawSession,
  onceBootError,
  onceClient,
  outcomeOfCall,
  startNestTcp,
  startOnce,
} from './support/contract-apps';
import { SECRETS, filterCalls } from './support/contract-enhancers';
import { CONTRACT, messagePattern } from './support/contract-table';
import { TcpLedger } from './support/nest-tcp-service';
import { ServerLog } from './support/server-log';

/*
 * The server half of the transport contract: the TCP scenarios of NestJS's
 * own microservices integration specs (sum by object pattern, async and
 * Observable replies, streams, events, RpcException, exception filters),
 * each run on NestJS TCP (`Transport.TCP` and its ClientProxy) and on once
 * (an in-process OnceServer and OnceClientProxy, or raw frames where the
 * bytes matter). `support/contract-table.ts` says, row by row, what once
 * does: the same (asserted by comparing both), or a refusal whose code and
 * message this suite asserts to the letter.
 */

const NUMBERS = [1, 2, 3, 4, 5];
/** What NestJS answers for an exception it does not know. */
const NEST_INTERNAL_ERROR = { status: 'error', message: 'Internal server error' };

/** The refusal a once reply carries, with `rpcError` when it has one. */
function refusalOf(frame: Frame): { code: string; message: string; rpcError?: unknown } {
  const body = JSON.parse(frame.body.toString('utf8')) as {
    ok: boolean;
    error?: { code: string; message: string; rpcError?: unknown };
  };
  if (body.ok || !body.error) throw new Error(`not a refusal: ${frame.body.toString('utf8')}`);
  return body.error;
}

describe('the server side of NestJS’s TCP transport contract: each scenario on NestJS TCP and on once', () => {
  const log = new ServerLog();
  let root: string;
  let tcp: ContractService;
  let once: ContractService;
  let session: RawSession;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-contract-'));
    tcp = await startNestTcp(log);
    once = await startOnce(join(root, 'once'), log);
    session = await RawSession.open(once.port);
  });
  afterAll(async () => {
    session?.close();
    await once?.close();
    await tcp?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** The once service's replicated state, read by a @Query. */
  const onceState = () =>
    lastValueFrom(
      once.client.send<{ notifications: number; applied: Array<{ pattern: string; op: number }> }>(
        'contract.state',
        {},
      ),
    );

  describe('row: a handler replies with an Observable', () => {
    it(`given of(value), when each transport's client sends, then ${CONTRACT.observableOne.onceText}, as NestJS TCP does`, async () => {
      const nest = await outcomeOfCall(tcp.client.send('sum.of', NUMBERS));
      expect(nest).toEqual({ values: [15] });
      await expect(outcomeOfCall(once.client.send('sum.of', NUMBERS))).resolves.toEqual(nest);
      await expect(outcomeOfCall(once.client.send('sum.of.read', NUMBERS))).resolves.toEqual(nest);
    });

    it(`given an Observable that completes without a value, or a handler returning undefined, then ${CONTRACT.observableEmpty.onceText}, as NestJS TCP does`, async () => {
      const nestEmpty = await outcomeOfCall(tcp.client.send('sum.empty', {}));
      expect(nestEmpty).toEqual({ values: [] });
      await expect(outcomeOfCall(tcp.client.send('sum.void', {}))).resolves.toEqual(nestEmpty);
      await expect(outcomeOfCall(once.client.send('sum.empty', {}))).resolves.toEqual(nestEmpty);
      await expect(outcomeOfCall(once.client.send('sum.void', {}))).resolves.toEqual(nestEmpty);

      const empty = await session.command('sum.empty', {});
      const nothing = await session.command('sum.void', {});
      expect(empty.reply.body.toString('utf8')).toBe('{"ok":true,"result":null,"empty":true}');
      expect(nothing.reply.body.equals(empty.reply.body)).toBe(true);
    });

    it('given an async handler, then a @Query replies its value as NestJS TCP does', async () => {
      const nest = await outcomeOfCall(tcp.client.send('sum.async', NUMBERS));
      expect(nest).toEqual({ values: [15] });
      await expect(outcomeOfCall(once.client.send('sum.async', NUMBERS))).resolves.toEqual(nest);
    });

    it('given an async @Command method, when the once service starts, then listen() rejects naming the method and @Admit', async () => {
      const row = CONTRACT.asyncCommand.once;
      const error = await onceBootError(
        onceModuleWith(join(root, 'async-command'), [AsyncSumController]),
        log,
      );
      expect(error).toBeInstanceOf(HandlerDiscoveryError);
      expect(error).toMatchObject({ code: row.code, message: row.message });
    });

    it('given an Observable that emits later, then a @Query waits for it as NestJS TCP does, and a @Command is refused with a committed REPLY_NOT_SINGLE', async () => {
      const nest = await outcomeOfCall(tcp.client.send('sum.later', NUMBERS));
      expect(nest).toEqual({ values: [15] });
      await expect(outcomeOfCall(once.client.send('sum.later.read', NUMBERS))).resolves.toEqual(
        nest,
      );

      const row = CONTRACT.laterCommand.once;
      const { request, reply } = await session.command('sum.later', NUMBERS);
      expect(refusalOf(reply)).toEqual({ code: row.code, message: row.message });
      expect((await session.retry(request, 'sum.later', NUMBERS)).raw.equals(reply.raw)).toBe(true);
    });
  });

  describe('row: a handler streams from([1, 2, 3, 4, 5])', () => {
    it('when the client sends, then NestJS TCP delivers every value, and once refuses the @Command once and for all (the apply step ran once; a retry gets the same bytes)', async () => {
      await expect(outcomeOfCall(tcp.client.send('sum.stream', NUMBERS))).resolves.toEqual({
        values: NUMBERS,
      });

      const row = CONTRACT.streamCommand.once;
      const { request, reply } = await session.command('sum.stream', NUMBERS);
      expect(refusalOf(reply)).toEqual({ code: row.code, message: row.message });
      const retried = await session.retry(request, 'sum.stream', NUMBERS);
      expect(retried.raw.equals(reply.raw)).toBe(true);
      const applied = (await onceState()).applied.filter((step) => step.pattern === 'sum.stream');
      expect(applied).toEqual([{ pattern: 'sum.stream', op: reply.header.op }]);
    });

    it('when the client sends a @Query, then once refuses it REPLY_NOT_SINGLE, never taking the last value', async () => {
      const row = CONTRACT.streamQuery.once;
      const { error } = await outcomeOfCall(once.client.send('sum.stream.read', NUMBERS));
      expect(error).toBeInstanceOf(CommandRefusedError);
      expect(error).toMatchObject({ code: row.code, message: row.message });
    });
  });

  describe('row: object patterns', () => {
    it("when a client names { cmd: 'sum' } (NestJS's route of it on once), then the handler runs as on NestJS TCP", async () => {
      const nest = await outcomeOfCall(tcp.client.send({ cmd: 'sum' }, NUMBERS));
      expect(nest).toEqual({ values: [15] });
      await expect(outcomeOfCall(once.client.send('{"cmd":"sum"}', NUMBERS))).resolves.toEqual(
        nest,
      );
      await expect(
        outcomeOfCall(once.client.send('{"cmd":"total","scope":"all"}', NUMBERS)),
      ).resolves.toEqual(nest);
    });

    it('when a raw request spells the object with its keys in another order, then the command reaches its handler and is journaled under the route', async () => {
      const { reply } = await session.command('{"scope":"all","cmd":"sum"}', NUMBERS);
      expect(outcomeOf(reply)).toEqual({ ok: true, result: 15 });
      const journal = once.app.get(OnceRuntime).journal;
      for await (const [entry] of journal.readBatches(reply.header.op, 1)) {
        expect(JSON.parse(entry.body.toString('utf8'))).toEqual({
          pattern: '{"cmd":"sum","scope":"all"}',
          data: NUMBERS,
        });
      }
      expect(outcomeOf(await session.query('{"scope":"all","cmd":"total"}', NUMBERS))).toEqual({
        ok: true,
        result: 15,
      });
    });

    it("when OnceClientProxy sends the object { cmd: 'sum' } itself, then the handler runs as on NestJS TCP (with OnceClientProxy's object-pattern routing)", async () => {
      await expect(outcomeOfCall(once.client.send({ cmd: 'sum' }, NUMBERS))).resolves.toEqual({
        values: [15],
      });
    });
  });

  describe('row: emit() and event handlers', () => {
    it('given an @EventPattern bound to the once transport, when the once service starts, then listen() rejects naming the handler and @Command', async () => {
      const row = CONTRACT.eventOnOnce.once;
      const error = await onceBootError(
        onceModuleWith(join(root, 'event-handler'), [NotificationsController]),
        log,
      );
      expect(error).toBeInstanceOf(ForeignHandlerError);
      expect(error).toMatchObject({ code: row.code, message: row.message });
    });

    it('given a hybrid app with a NestJS TCP transport, then the same @EventPattern (no transport argument) starts, and emit() over TCP runs it', async () => {
      const hybrid = await startHybridNotifications(join(root, 'hybrid'), log);
      try {
        await lastValueFrom(hybrid.tcpClient.emit('notification', { n: 1 }), {
          defaultValue: undefined,
        });
        await eventually(
          () => hybrid.notifications.received.length === 1,
          'the event handler run over TCP',
        );
        expect(hybrid.notifications.received).toEqual([{ n: 1 }]);
      } finally {
        await hybrid.close();
      }
    });

    it('when each client emits, then NestJS TCP runs the @EventPattern, and once runs the @Command exactly once although the client resent it', async () => {
      await lastValueFrom(tcp.client.emit('notification', true), { defaultValue: undefined });
      const ledger = tcp.app.get(TcpLedger);
      await eventually(() => ledger.notifications === 1, 'the NestJS TCP event handler');

      const before = (await onceState()).notifications;
      const proxy = await TcpProxy.start({ targetPort: once.port });
      const client = onceClient(proxy.port);
      try {
        await client.connect();
        // The command commits; its reply is held, then the connection is cut.
        proxy.setMode('toClient', 'hold');
        const emitted = lastValueFrom(client.emit('notification', true), {
          defaultValue: undefined,
        });
        await eventually(() => proxy.heldBytes('toClient') > 0, 'the emitted command committed');
        proxy.cut();
        proxy.setMode('toClient', 'forward');
        // The client reconnects and resends it under its number.
        await emitted;
        expect((await onceState()).notifications).toBe(before + 1);
      } finally {
        await client.close();
        await proxy.close();
      }
    });
  });

  describe('row: RpcException', () => {
    it.each([
      ['a @Command', 'seq.check', {}, 'command'],
      ['a @Query', 'seq.read', {}, 'query'],
      ['a @Command, as a string', 'order.find', {}, 'command'],
      ['a guard', 'order.place', { tenant: 'suspended' }, 'command'],
    ] as const)(
      'when %s throws it, then its error object reaches the client as on NestJS TCP',
      async (_where, pattern, data, operation) => {
        const nestPattern = pattern === 'seq.read' ? 'seq.check' : pattern;
        const { error: nestError } = await outcomeOfCall(tcp.client.send(nestPattern, data));
        expect(typeof nestError).toBe('object');

        const reply =
          operation === 'command'
            ? (await session.command(pattern, data)).reply
            : await session.query(pattern, data);
        const refusal = refusalOf(reply);
        expect(refusal.rpcError).toEqual(nestError);
        const { code } = nestError as { code?: string };
        expect(refusal.code).toBe(code ?? 'RPC_EXCEPTION');
        expect(refusal.message).toBe((nestError as { message: string }).message);
      },
    );

    it('when a @Command throws it, then OnceClientProxy errors with the object itself, as the NestJS TCP client does (with OnceClientProxy reading rpcError)', async () => {
      const nest = await outcomeOfCall(tcp.client.send('seq.check', {}));
      await expect(outcomeOfCall(once.client.send('seq.check', {}))).resolves.toEqual(nest);
    });
  });

  describe('row: exception filters', () => {
    it.each([
      ['global', 'report.global'],
      ['class', 'report.class'],
      ['method', 'report.method'],
    ] as const)(
      'when the handler throws what the %s filter catches, then NestJS TCP answers with the filter, and once calls the filter and commits HANDLER_FAILED',
      async (filter, pattern) => {
        const data = { n: pattern };
        const calls = filterCalls.length;
        const nest = await outcomeOfCall(tcp.client.send(pattern, data));
        expect(nest.error).toEqual({
          code: 'REPORTED',
          message: `reported by the ${filter} filter`,
        });
        expect(filterCalls.slice(calls)).toEqual([
          { filter, message: expect.any(String) as unknown, hostType: 'rpc', data },
        ]);

        const onceCalls = filterCalls.length;
        const { reply } = await session.command(pattern, data);
        expect(refusalOf(reply)).toEqual({
          code: 'HANDLER_FAILED',
          message: expect.stringMatching(
            messagePattern(CONTRACT.filterAtApply.once.message),
          ) as unknown,
        });
        expect(filterCalls.slice(onceCalls)).toEqual(filterCalls.slice(calls, onceCalls));
      },
    );

    it("when a guard throws what the global filter catches, then both call the filter and answer with the filter's answer", async () => {
      const data = { n: 'admission' };
      const calls = filterCalls.length;
      const nest = await outcomeOfCall(tcp.client.send('report.admission', data));
      expect(nest.error).toEqual({ code: 'REPORTED', message: 'reported by the global filter' });

      const { reply } = await session.command('report.admission', data);
      expect(refusalOf(reply)).toEqual({ ...(nest.error as object), rpcError: nest.error });
      expect(filterCalls.slice(calls)).toEqual([
        { filter: 'global', message: 'refused at admission', hostType: 'rpc', data },
        { filter: 'global', message: 'refused at admission', hostType: 'rpc', data },
      ]);
    });
  });

  describe('row: errors leak nothing', () => {
    it('when a handler throws an Error holding a secret, then NestJS TCP answers Internal server error, once HANDLER_FAILED naming the op, and the secret is in the server log only', async () => {
      const nest = await outcomeOfCall(tcp.client.send('secret.crash', {}));
      expect(nest.error).toEqual(NEST_INTERNAL_ERROR);

      const { reply } = await session.command('secret.crash', {});
      const { op } = reply.header;
      expect(refusalOf(reply)).toEqual({
        code: 'HANDLER_FAILED',
        message: `the handler failed at op ${op}; the server log has the details`,
      });
      expect(reply.raw.includes(SECRETS.apply)).toBe(false);
      const logged = log.containing(`failed at op ${op}: Error: connect failed (${SECRETS.apply})`);
      expect(logged).toHaveLength(1);
    });

    it.each([
      ['a @Query', 'secret.read', SECRETS.query, CONTRACT.secretInQuery.once],
      ['a guard', 'secret.guard', SECRETS.guard, CONTRACT.secretInGuard.once],
    ] as const)(
      'when %s throws an Error holding a secret, then once answers an error id with NestJS’s own answer, and the secret is in the server log only',
      async (_where, pattern, secret, row) => {
        const reply =
          pattern === 'secret.read'
            ? await session.query(pattern, {})
            : (await session.command(pattern, {})).reply;
        const refusal = refusalOf(reply);
        expect(refusal).toEqual({
          code: row.code,
          message: expect.stringMatching(messagePattern(row.message)) as unknown,
          rpcError: NEST_INTERNAL_ERROR,
        });
        expect(reply.raw.includes(secret)).toBe(false);
        const errorId = /error ([0-9a-f]{12})/.exec(refusal.message)![1];
        expect(log.containing(`(error ${errorId})`)).toHaveLength(1);
        expect(log.containing(secret).length).toBeGreaterThan(0);
      },
    );

    it.each([
      ['a @Query', 'secret.read', CONTRACT.secretInQuery.once],
      ['a guard', 'secret.guard', CONTRACT.secretInGuard.once],
    ] as const)(
      'when %s throws an Error, then a NestJS TCP caller gets NestJS’s answer, and an OnceClientProxy caller the refusal’s code and error id, with NestJS’s answer as rpcError',
      async (_where, pattern, row) => {
        // NestJS TCP answers any plain Error the same way (its service has one handler that throws it).
        const nest = await outcomeOfCall(tcp.client.send('secret.crash', {}));
        expect(nest.error).toEqual(NEST_INTERNAL_ERROR);

        const { error } = await outcomeOfCall(once.client.send(pattern, {}));
        expect(error).toBeInstanceOf(CommandRefusedError);
        expect(error).toMatchObject({
          code: row.code,
          message: expect.stringMatching(messagePattern(row.message)) as unknown,
          rpcError: NEST_INTERNAL_ERROR,
        });
        const errorId = /error ([0-9a-f]{12})/.exec((error as Error).message)![1];
        expect(log.containing(`(error ${errorId})`)).toHaveLength(1);
      },
    );

    it('when an @Admit step throws an Error holding a secret, then once commits ADMISSION_FAILED with an error id, logged with the secret', async () => {
      const row = CONTRACT.secretInAdmit.once;
      const { reply } = await session.command('secret.admit', {});
      const refusal = refusalOf(reply);
      expect(refusal).toEqual({
        code: row.code,
        message: expect.stringMatching(messagePattern(row.message)) as unknown,
      });
      expect(reply.raw.includes(SECRETS.admit)).toBe(false);
      const errorId = /error ([0-9a-f]{12})/.exec(refusal.message)![1];
      const logged = log.containing(`(error ${errorId})`);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain(SECRETS.admit);
    });
  });

  describe('given once commands that failed or were refused at apply, when the service restarts and replays its journal (no snapshot)', () => {
    const sent: Array<{ request: number; pattern: string; data: unknown; reply: Buffer }> = [];
    let replayRoot: string;
    let service: ContractService;
    let raw: RawSession;

    beforeAll(async () => {
      replayRoot = join(root, 'replay');
      service = await startOnce(replayRoot, log);
      raw = await RawSession.open(service.port);
      for (const [pattern, data] of [
        ['secret.crash', {}],
        ['report.global', { n: 1 }],
        ['sum.stream', NUMBERS],
        ['seq.check', {}],
      ] as const) {
        const { request, reply } = await raw.command(pattern, data);
        sent.push({ request, pattern, data, reply: Buffer.from(reply.raw) });
      }
    });
    afterAll(async () => {
      raw?.close();
      await service?.close();
    });

    it('then every retry gets the first bytes, and neither the log nor the filters hear of the failures again', async () => {
      const calls = filterCalls.length;
      const failureLines = log.containing('failed at op').length;
      await service.app.get(OnceRuntime).node.stop({ snapshot: false });
      raw.close();
      await service.close();
      service = await startOnce(replayRoot, log);

      const again = await RawClient.connect(service.port);
      try {
        for (const { request, pattern, data, reply } of sent) {
          const retried = await raw.retry(request, pattern, data, again);
          expect({ pattern, bytes: retried.raw.toString('hex') }).toEqual({
            pattern,
            bytes: reply.toString('hex'),
          });
        }
      } finally {
        again.destroy();
      }
      expect(filterCalls.length).toBe(calls);
      expect(log.containing('failed at op').length).toBe(failureLines);
    });
  });

  describe('given a once service with no exception filter whose @Command refuses with a CommandError', () => {
    let service: { close(): Promise<void> } | undefined;
    afterAll(() => service?.close());

    it('when a client sends it, then the refusal is committed, and the log says it was a refusal, not that a filter answered', async () => {
      const strategy = new OnceServer({ port: 0 });
      const app = await NestFactory.createMicroservice(
        onceModuleWith(join(root, 'refusing'), [RefusingController]),
        { strategy, logger: log },
      );
      await app.listen();
      await app.get(OnceRuntime).whenReady();
      const client = onceClient(strategy.address()!.port);
      service = {
        close: async () => {
          await client.close();
          await app.close();
        },
      };

      const error = await firstValueFrom(client.send('charge', {})).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CommandRefusedError);
      expect(error).toMatchObject({
        code: 'INSUFFICIENT_FUNDS',
        message: 'the balance is too low',
      });

      expect(log.containing('exception filter of RefusingController')).toEqual([]);
      expect(log.containing('RefusingController.charge')).toEqual([
        expect.stringMatching(
          /^DEBUG RefusingController\.charge refused op [0-9]+ with CommandError INSUFFICIENT_FUNDS: a committed refusal, its reply is the refusal \(no exception filter changed it\) Once$/,
        ) as unknown,
      ]);
    });
  });
});
