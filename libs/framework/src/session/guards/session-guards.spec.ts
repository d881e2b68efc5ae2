import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  type Type,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  type CustomTransportStrategy,
  MessagePattern,
  Server,
  TcpContext,
} from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { GUARDS_METADATA, executionContextOf } from '../../nest/nest-internals';
import { type ClientEntry } from '@once/client-table/internal';
import { Command as FrameCommand, type ClientId, EvictionReason, Operation } from '@once/protocol';
import { encodeFrame, frameFromBytes } from '@once/protocol/internal';
import { lastValueFrom } from 'rxjs';
import { Command } from '../../decorators/command.decorator';
import { Query } from '../../decorators/query.decorator';
import { ONCE_TRANSPORT } from '../../once.constants';
import { EpochAheadException } from '../exceptions/epoch-ahead.exception';
import { type GatewayException } from '../exceptions/gateway.exception';
import { InvalidRequestException } from '../exceptions/invalid-request.exception';
import { NotBoundException } from '../exceptions/not-bound.exception';
import { SessionEvictedException } from '../exceptions/session-evicted.exception';
import { type ConnectionView, OnceRpcContext } from '../once-rpc-context';
import { type SessionBinding } from '../session-binding';
import { type SessionGate } from '../session-gate';
import { CLIENT_NOT_BOUND_DETAIL } from '../session-verdict';
import { EpochFenceGuard } from './epoch-fence.guard';
import { ResumeGuard } from './resume.guard';

const A: ClientId = 'a'.repeat(32);
const B: ClientId = 'b'.repeat(32);
const ALICE = 7;

/** What each guard of the pipeline saw, in the order they ran. */
const seen: Array<{ guard: string; binding: SessionBinding | undefined }> = [];

function record(guard: string, context: ExecutionContext): boolean {
  const rpc = context.switchToRpc().getContext<unknown>();
  seen.push({ guard, binding: rpc instanceof OnceRpcContext ? rpc.getBinding() : undefined });
  return true;
}

/** A guard that records its name and what it saw, and lets the request through. */
function recordingGuard(name: string): Type<CanActivate> {
  @Injectable()
  class RecordingGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      return record(name, context);
    }
  }
  return RecordingGuard;
}

const AppGuard = recordingGuard('APP_GUARD');
const GlobalGuard = recordingGuard('useGlobalGuards');
const ClassGuard = recordingGuard('class');
const MethodGuard = recordingGuard('method');

/** A team's controller: a command, a query, a plain rpc handler and an HTTP route. */
@Controller()
@UseGuards(ClassGuard)
class TeamController {
  @UseGuards(MethodGuard)
  @Command('team.place')
  place(data: unknown): unknown {
    return data;
  }

  @UseGuards(MethodGuard)
  @Query('team.read')
  read(): string {
    return 'read';
  }

  @MessagePattern('plain.echo')
  echo(data: unknown): unknown {
    return data;
  }

  @Get('health')
  health(): string {
    return 'ok';
  }
}

@Module({
  controllers: [TeamController],
  providers: [{ provide: APP_GUARD, useClass: AppGuard }],
})
class TeamModule {}

/** The connection, the table and the token check a once request is judged against. */
class FakeGate implements SessionGate {
  readonly entries = new Map<ClientId, ClientEntry>();
  tokenValid = false;
  gone = EvictionReason.NoSession;
  readonly resumed: Array<{ connectionId: number; binding: SessionBinding }> = [];
  constructor(private readonly connection: { binding: SessionBinding | undefined }) {}

  tableEntry(client: ClientId): ClientEntry | undefined {
    return this.entries.get(client);
  }
  goneReason(): EvictionReason {
    return this.gone;
  }
  verifyResumeToken(): boolean {
    return this.tokenValid;
  }
  bindResumed(connectionId: number, binding: SessionBinding): void {
    this.resumed.push({ connectionId, binding });
    this.connection.binding = binding;
  }
}

interface Setup {
  readonly binding?: SessionBinding;
  readonly header?: { client?: ClientId; session?: number; request?: number };
  /** The table's entry for the header's client: its epoch (watermark 3). */
  readonly entryEpoch?: number;
  readonly tokenValid?: boolean;
  readonly gone?: EvictionReason;
}

/** A once request of `pattern` on connection #12, with the table and gate `setup` describes. */
function onceRequest(pattern: string, setup: Setup = {}) {
  const connection: ConnectionView & { binding: SessionBinding | undefined } = {
    id: 12,
    remote: '127.0.0.1:40000',
    binding: setup.binding,
  };
  const gate = new FakeGate(connection);
  if (setup.entryEpoch !== undefined) {
    gate.entries.set(setup.header?.client ?? A, {
      epoch: setup.entryEpoch,
      watermark: 3,
      userId: ALICE,
    } as ClientEntry);
  }
  gate.tokenValid = setup.tokenValid ?? false;
  gate.gone = setup.gone ?? EvictionReason.NoSession;
  const raw = encodeFrame(
    {
      command: FrameCommand.Request,
      operation: Operation.Command,
      client: setup.header?.client ?? A,
      session: setup.header?.session ?? 5,
      request: setup.header?.request ?? 1,
    },
    JSON.stringify({ pattern, data: {} }),
  );
  const rpc = new OnceRpcContext(connection, frameFromBytes(raw), pattern, gate);
  return { rpc, gate, connection };
}

const handlers = TeamController.prototype as unknown as Record<string, Type>;

/** The execution context NestJS hands a guard of `method`, as `type`. */
function contextOf(method: string, type: 'rpc' | 'http', rpcContext: unknown): ExecutionContext {
  return executionContextOf(type, [{}, rpcContext], TeamController, handlers[method]);
}

/** The built-in guards decide synchronously. */
type SessionGuard = ResumeGuard | EpochFenceGuard;

const GUARDS: ReadonlyArray<readonly [string, () => SessionGuard]> = [
  ['ResumeGuard', () => new ResumeGuard()],
  ['EpochFenceGuard', () => new EpochFenceGuard()],
];

describe('the session guards (ResumeGuard, EpochFenceGuard)', () => {
  it('given a controller with @Command and @Query, then they come first among its class guards, and method guards stay on the method', () => {
    expect(Reflect.getMetadata(GUARDS_METADATA, TeamController)).toEqual([
      ResumeGuard,
      EpochFenceGuard,
      ClassGuard,
    ]);
    expect(Reflect.getMetadata(GUARDS_METADATA, handlers.place)).toEqual([MethodGuard]);
    expect(Reflect.getMetadata(GUARDS_METADATA, handlers.read)).toEqual([MethodGuard]);
  });

  describe.each(GUARDS)('%s', (_name, guardOf) => {
    it('lets an HTTP route through', () => {
      expect(guardOf().canActivate(contextOf('health', 'http', undefined))).toBe(true);
    });

    it('lets an rpc handler without once metadata through, whatever its context', () => {
      expect(guardOf().canActivate(contextOf('echo', 'rpc', new TcpContext([] as never)))).toBe(
        true,
      );
    });

    it.each(['place', 'read'])(
      'fails closed on a once handler (%s) reached without an OnceRpcContext',
      (method) => {
        expect(guardOf().canActivate(contextOf(method, 'rpc', new TcpContext([] as never)))).toBe(
          false,
        );
        expect(guardOf().canActivate(contextOf(method, 'rpc', undefined))).toBe(false);
      },
    );

    it('passes a bound connection at the table’s epoch, and records no refusal', () => {
      const { rpc } = onceRequest('team.place', { binding: binding(5), entryEpoch: 5 });
      expect(guardOf().canActivate(contextOf('place', 'rpc', rpc))).toBe(true);
      expect(rpc.sessionRefusal).toBeUndefined();
    });
  });

  describe('ResumeGuard', () => {
    it('given an unbound connection with a valid token for the table’s epoch, then it binds the connection as the entry’s user', () => {
      const { rpc, gate } = onceRequest('team.place', { entryEpoch: 5, tokenValid: true });
      expect(new ResumeGuard().canActivate(contextOf('place', 'rpc', rpc))).toBe(true);
      expect(gate.resumed).toEqual([{ connectionId: 12, binding: binding(5) }]);
      expect(rpc.getBinding()).toEqual(binding(5));
      expect(rpc.getUserId()).toBe(ALICE);
      expect(rpc.sessionRefusal).toBeUndefined();
    });

    it('given an unbound connection with a valid token for an older epoch, then it leaves the connection unbound for the fence to answer', () => {
      const { rpc, gate } = onceRequest('team.place', { entryEpoch: 8, tokenValid: true });
      expect(new ResumeGuard().canActivate(contextOf('place', 'rpc', rpc))).toBe(true);
      expect(gate.resumed).toEqual([]);
      expect(rpc.getBinding()).toBeUndefined();
      expect(() => new EpochFenceGuard().canActivate(contextOf('place', 'rpc', rpc))).toThrow(
        SessionEvictedException,
      );
      expect(rpc.sessionRefusal).toMatchObject({ reason: EvictionReason.SessionTooLow });
    });
  });

  const REFUSALS: ReadonlyArray<
    readonly [string, () => SessionGuard, Setup, Type<GatewayException>, Record<string, unknown>]
  > = [
    [
      'ResumeGuard: unbound, the token does not verify',
      () => new ResumeGuard(),
      { entryEpoch: 5, tokenValid: false },
      NotBoundException,
      { code: 'NOT_BOUND' },
    ],
    [
      'ResumeGuard: unbound, session 0 (even with a token that verifies)',
      () => new ResumeGuard(),
      { entryEpoch: 5, tokenValid: true, header: { session: 0 } },
      NotBoundException,
      { code: 'NOT_BOUND' },
    ],
    [
      'EpochFenceGuard: the header names another client than the binding',
      () => new EpochFenceGuard(),
      { binding: binding(5), entryEpoch: 5, header: { client: B } },
      InvalidRequestException,
      { code: 'INVALID_REQUEST', detail: CLIENT_NOT_BOUND_DETAIL },
    ],
    [
      'EpochFenceGuard: no entry (NO_SESSION)',
      () => new EpochFenceGuard(),
      { binding: binding(5) },
      SessionEvictedException,
      { code: 'SESSION_EVICTED', reason: EvictionReason.NoSession, watermark: 0 },
    ],
    [
      'EpochFenceGuard: no entry, expired (EXPIRED)',
      () => new EpochFenceGuard(),
      { binding: binding(5), gone: EvictionReason.Expired },
      SessionEvictedException,
      { reason: EvictionReason.Expired, watermark: 0 },
    ],
    [
      'EpochFenceGuard: fenced by a REGISTER elsewhere (SESSION_TOO_LOW)',
      () => new EpochFenceGuard(),
      { binding: binding(5), entryEpoch: 8, header: { session: 8 } },
      SessionEvictedException,
      { reason: EvictionReason.SessionTooLow, watermark: 3 },
    ],
    [
      'EpochFenceGuard: the header names an epoch above the table’s (EPOCH_AHEAD)',
      () => new EpochFenceGuard(),
      { binding: binding(5), entryEpoch: 5, header: { session: 6 } },
      EpochAheadException,
      { code: 'EPOCH_AHEAD', watermark: 3 },
    ],
  ];

  it.each(REFUSALS)(
    'given %s, then it throws its refusal and records it on the context',
    (_what, guardOf, setup, refusal, fields) => {
      for (const method of ['place', 'read']) {
        const { rpc } = onceRequest(`team.${method}`, setup);
        let thrown: unknown;
        try {
          guardOf().canActivate(contextOf(method, 'rpc', rpc));
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(refusal);
        expect(thrown).toMatchObject(fields);
        expect(rpc.sessionRefusal).toBe(thrown);
      }
    },
  );
});

/** A transport that dispatches once requests in-process, through NestJS's pipeline. */
class InProcessTransport extends Server implements CustomTransportStrategy {
  override readonly transportId = ONCE_TRANSPORT;
  listen(callback: () => void): void {
    callback();
  }
  close(): void {}
  on(): void {}
  unwrap<T>(): T {
    throw new Error('nothing to unwrap');
  }
  async call(pattern: string, rpc: OnceRpcContext): Promise<unknown> {
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) throw new Error(`no handler for ${pattern}`);
    return lastValueFrom(this.transformToObservable(await handler({}, rpc)));
  }
}

/** Refuses client B at the fence, on top of the real rules; counts its calls. */
@Injectable()
class StricterFence extends EpochFenceGuard {
  static calls = 0;
  override canActivate(context: ExecutionContext): boolean {
    StricterFence.calls++;
    const rpc = context.switchToRpc().getContext<unknown>();
    if (rpc instanceof OnceRpcContext && rpc.getClient() === B) {
      throw rpc.refuseSession(new SessionEvictedException(EvictionReason.NoSession, 0));
    }
    return super.canActivate(context);
  }
}

describe('given a NestJS microservice with APP_GUARD, useGlobalGuards, class and method guards around @Command and @Query', () => {
  async function start(replaceFence = false) {
    const builder = Test.createTestingModule({ imports: [TeamModule] });
    if (replaceFence) builder.overrideGuard(EpochFenceGuard).useClass(StricterFence);
    const moduleRef = await builder.compile();
    const transport = new InProcessTransport();
    const app = moduleRef.createNestMicroservice({ strategy: transport, logger: false });
    app.useGlobalGuards(new GlobalGuard());
    await app.listen();
    return { app, transport };
  }

  beforeEach(() => {
    seen.splice(0);
    StricterFence.calls = 0;
  });

  it.each(['team.place', 'team.read'])(
    'when %s arrives on an unbound connection with a valid token, then the global guards run before the session guards bind it, the class and method guards after',
    async (pattern) => {
      const { app, transport } = await start();
      try {
        const { rpc } = onceRequest(pattern, { entryEpoch: 5, tokenValid: true });
        await transport.call(pattern, rpc);
        expect(seen).toEqual([
          { guard: 'APP_GUARD', binding: undefined },
          { guard: 'useGlobalGuards', binding: undefined },
          { guard: 'class', binding: binding(5) },
          { guard: 'method', binding: binding(5) },
        ]);
      } finally {
        await app.close();
      }
    },
  );

  it('when the fence refuses, then no later guard runs and the refusal is on the context whatever the filters made of it', async () => {
    const { app, transport } = await start();
    try {
      const { rpc } = onceRequest('team.place', {
        binding: binding(5),
        entryEpoch: 8,
        header: { session: 5 },
      });
      // The framework's filter turns the exception into an rpc error object.
      await expect(transport.call('team.place', rpc)).rejects.not.toBeInstanceOf(
        SessionEvictedException,
      );
      expect(rpc.sessionRefusal).toBeInstanceOf(SessionEvictedException);
      expect(rpc.sessionRefusal).toMatchObject({ reason: EvictionReason.SessionTooLow });
      expect(seen.map(({ guard }) => guard)).toEqual(['APP_GUARD', 'useGlobalGuards']);
    } finally {
      await app.close();
    }
  });

  it('when EpochFenceGuard is replaced with overrideGuard, then the replacement judges every once request in its place', async () => {
    const { app, transport } = await start(true);
    try {
      const { rpc: passes } = onceRequest('team.place', { binding: binding(5), entryEpoch: 5 });
      await transport.call('team.place', passes);
      expect(StricterFence.calls).toBe(1);
      expect(passes.sessionRefusal).toBeUndefined();

      const { rpc: quarantined } = onceRequest('team.read', {
        binding: { client: B, epoch: 5, userId: ALICE },
        header: { client: B },
        entryEpoch: 5,
      });
      await expect(transport.call('team.read', quarantined)).rejects.toBeDefined();
      expect(StricterFence.calls).toBe(2);
      expect(quarantined.sessionRefusal).toMatchObject({ reason: EvictionReason.NoSession });
      // Only the requests that passed reached the class and method guards.
      expect(seen.filter(({ guard }) => guard === 'method')).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

function binding(epoch: number): SessionBinding {
  return { client: A, epoch, userId: ALICE };
}
