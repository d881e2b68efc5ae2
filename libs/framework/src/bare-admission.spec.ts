import {
  type ArgumentsHost,
  type CallHandler,
  type CanActivate,
  Catch,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  type INestMicroservice,
  Injectable,
  Module,
  type NestInterceptor,
  type PipeTransform,
  type Provider,
  type Type,
  UseFilters,
  UseGuards,
  UseInterceptors,
  UsePipes,
  createParamDecorator,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { Ctx, type CustomTransportStrategy, Payload, Server } from '@nestjs/microservices';
import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import { type ClientEntry } from '@once/client-table/internal';
import { Command as FrameCommand, type ClientId, EvictionReason, Operation } from '@once/protocol';
import { encodeFrame, frameFromBytes } from '@once/protocol/internal';
import { type Observable, lastValueFrom } from 'rxjs';
import { type AdmissionTicket } from './admission-ticket';
import { type BareAdmission } from './bare-admission';
import { Command } from './decorators/command.decorator';
import { HandlerExplorer } from './handler-explorer';
import { ONCE_TRANSPORT } from './once.constants';
import { NotBoundException } from './session/exceptions/not-bound.exception';
import { SessionEvictedException } from './session/exceptions/session-evicted.exception';
import { EpochFenceGuard } from './session/guards/epoch-fence.guard';
import { type ConnectionView, OnceRpcContext } from './session/once-rpc-context';
import { type SessionBinding } from './session/session-binding';
import { type SessionGate } from './session/session-gate';

const A: ClientId = 'a'.repeat(32);
const ALICE = 7;

/** Which enhancers ran, in order: proves NestJS still runs what makes a pipeline not bare. */
const ran: string[] = [];

@Injectable()
class NamedGuard implements CanActivate {
  canActivate(): boolean {
    ran.push('guard');
    return true;
  }
}
@Injectable()
class NamedPipe implements PipeTransform {
  transform(value: unknown): unknown {
    ran.push('pipe');
    return value;
  }
}
@Injectable()
class NamedInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    ran.push('interceptor');
    return next.handle();
  }
}
@Catch()
class NamedFilter implements ExceptionFilter {
  catch(error: unknown, _host: ArgumentsHost): never {
    ran.push('filter');
    throw error;
  }
}
const Tenant = createParamDecorator(() => {
  ran.push('param');
  return 'tenant';
});

/** Commands with nothing but once's own pieces, in every parameter layout once allows. */
@Controller()
class PlainController {
  @Command('plain.positional')
  positional(data: unknown): unknown {
    return data;
  }

  @Command('plain.layout')
  layout(
    @Payload('amount') _amount: number,
    @Ctx() _ctx: unknown,
    @Payload() data: unknown,
  ): unknown {
    return data;
  }

  @Command('plain.keyed')
  keyed(@Payload('amount') amount: number): number {
    return amount;
  }
}

/** One enhancer (or parameter) the bare admission must not skip, and where it is declared. */
interface Case {
  readonly name: string;
  readonly controller: Type;
  readonly providers?: Provider[];
  readonly setup?: (app: INestMicroservice) => void;
  readonly override?: (builder: TestingModuleBuilder) => void;
  /** What NestJS runs for it on a command that passes (a filter: one the fence refuses). */
  readonly runs: string[];
  /** A filter's case: the request is fenced, so there is an exception to filter. */
  readonly refused?: boolean;
}

function methodLevel(
  name: string,
  decorate: MethodDecorator | ParameterDecorator,
  runs: string[],
  refused = false,
): Case {
  @Controller()
  class MethodLevel {
    @Command('case.command')
    command(data: unknown): unknown {
      return data;
    }
  }
  if (name.startsWith('param')) {
    (decorate as ParameterDecorator)(MethodLevel.prototype, 'command', 0);
  } else {
    const descriptor = Object.getOwnPropertyDescriptor(MethodLevel.prototype, 'command')!;
    (decorate as MethodDecorator)(MethodLevel.prototype, 'command', descriptor);
  }
  return { name, controller: MethodLevel, runs, refused };
}

function classLevel(name: string, decorate: ClassDecorator, runs: string[], refused = false): Case {
  @Controller()
  class ClassLevel {
    @Command('case.command')
    command(data: unknown): unknown {
      return data;
    }
  }
  decorate(ClassLevel);
  return { name, controller: ClassLevel, runs, refused };
}

function globalLevel(name: string, extra: Omit<Case, 'name' | 'controller'>): Case {
  @Controller()
  class GlobalLevel {
    @Command('case.command')
    command(data: unknown): unknown {
      return data;
    }
  }
  return { name, controller: GlobalLevel, ...extra };
}

/** Refuses nothing; stands in for a team's replacement of a session guard. */
@Injectable()
class ReplacedFence extends EpochFenceGuard {
  override canActivate(context: ExecutionContext): boolean {
    ran.push('replaced fence');
    return super.canActivate(context);
  }
}

const CASES: Case[] = [
  methodLevel('method guard', UseGuards(NamedGuard), ['guard']),
  methodLevel('method pipe', UsePipes(NamedPipe), ['pipe', 'pipe']),
  methodLevel('method interceptor', UseInterceptors(NamedInterceptor), ['interceptor']),
  methodLevel('method filter', UseFilters(NamedFilter), ['filter'], true),
  methodLevel('param pipe', Payload(NamedPipe), ['pipe']),
  methodLevel('param of a custom decorator', Tenant(), ['param']),
  classLevel('controller guard', UseGuards(NamedGuard), ['guard']),
  classLevel('controller pipe', UsePipes(NamedPipe), ['pipe', 'pipe']),
  classLevel('controller interceptor', UseInterceptors(NamedInterceptor), ['interceptor']),
  classLevel('controller filter', UseFilters(NamedFilter), ['filter'], true),
  globalLevel('useGlobalGuards', {
    setup: (app) => app.useGlobalGuards(new NamedGuard()),
    runs: ['guard'],
  }),
  globalLevel('useGlobalPipes', {
    setup: (app) => app.useGlobalPipes(new NamedPipe()),
    runs: ['pipe', 'pipe'],
  }),
  globalLevel('useGlobalInterceptors', {
    setup: (app) => app.useGlobalInterceptors(new NamedInterceptor()),
    runs: ['interceptor'],
  }),
  globalLevel('useGlobalFilters', {
    setup: (app) => app.useGlobalFilters(new NamedFilter()),
    runs: ['filter'],
    refused: true,
  }),
  globalLevel('APP_GUARD', {
    providers: [{ provide: APP_GUARD, useClass: NamedGuard }],
    runs: ['guard'],
  }),
  globalLevel('APP_PIPE', {
    providers: [{ provide: APP_PIPE, useClass: NamedPipe }],
    runs: ['pipe', 'pipe'],
  }),
  globalLevel('APP_INTERCEPTOR', {
    providers: [{ provide: APP_INTERCEPTOR, useClass: NamedInterceptor }],
    runs: ['interceptor'],
  }),
  globalLevel('APP_FILTER', {
    providers: [{ provide: APP_FILTER, useClass: NamedFilter }],
    runs: ['filter'],
    refused: true,
  }),
  globalLevel('a session guard replaced (overrideGuard)', {
    override: (builder) => builder.overrideGuard(EpochFenceGuard).useClass(ReplacedFence),
    runs: ['replaced fence'],
  }),
];

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
  async call(pattern: string, data: unknown, rpc: OnceRpcContext): Promise<unknown> {
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) throw new Error(`no handler for ${pattern}`);
    return lastValueFrom(this.transformToObservable(await handler(data, rpc)));
  }
}

async function start(
  controller: Type,
  extra: Omit<Case, 'name' | 'controller' | 'runs'> = {},
): Promise<{
  app: INestMicroservice;
  transport: InProcessTransport;
  bare: Map<string, BareAdmission>;
}> {
  @Module({
    imports: [DiscoveryModule],
    controllers: [controller],
    providers: [HandlerExplorer, ...(extra.providers ?? [])],
  })
  class CaseModule {}
  const builder = Test.createTestingModule({ imports: [CaseModule] });
  extra.override?.(builder);
  const moduleRef = await builder.compile();
  const transport = new InProcessTransport();
  const app = moduleRef.createNestMicroservice({ strategy: transport, logger: false });
  extra.setup?.(app);
  await app.listen();
  return { app, transport, bare: moduleRef.get(HandlerExplorer).bareAdmissions() };
}

/** The table and the token check a once request is judged against; records resumes. */
class FakeGate implements SessionGate {
  readonly resumed: SessionBinding[] = [];
  constructor(
    private readonly connection: { binding: SessionBinding | undefined },
    private readonly entry: ClientEntry | undefined,
    private readonly tokenValid: boolean,
  ) {}
  tableEntry(): ClientEntry | undefined {
    return this.entry;
  }
  goneReason(): EvictionReason {
    return EvictionReason.NoSession;
  }
  verifyResumeToken(): boolean {
    return this.tokenValid;
  }
  bindResumed(_connectionId: number, binding: SessionBinding): void {
    this.resumed.push(binding);
    this.connection.binding = binding;
  }
}

type Session = 'bound' | 'resumable' | 'unbound, bad token' | 'fenced';

/** A once request of `pattern` for client A, session 5, on a connection in the state `session` says. */
function onceRequest(pattern: string, session: Session) {
  const bound = { client: A, epoch: 5, userId: ALICE };
  const connection: ConnectionView & { binding: SessionBinding | undefined } = {
    id: 12,
    remote: '127.0.0.1:40000',
    binding: session === 'bound' || session === 'fenced' ? bound : undefined,
  };
  const epoch = session === 'fenced' ? 8 : 5;
  const entry = { epoch, watermark: 3, userId: ALICE } as ClientEntry;
  const gate = new FakeGate(connection, entry, session === 'resumable');
  const raw = encodeFrame(
    {
      command: FrameCommand.Request,
      operation: Operation.Command,
      client: A,
      session: 5,
      request: 4,
    },
    JSON.stringify({ pattern, data: {} }),
  );
  return { rpc: new OnceRpcContext(connection, frameFromBytes(raw), pattern, gate), gate };
}

/** What one admission left on its context and gate, to compare the two paths. */
interface Trace {
  readonly admission: AdmissionTicket | undefined;
  readonly refusal: unknown;
  readonly guardsPassed: boolean;
  readonly resumed: SessionBinding[];
}

async function throughNest(
  transport: InProcessTransport,
  pattern: string,
  data: unknown,
  session: Session,
): Promise<Trace> {
  const { rpc, gate } = onceRequest(pattern, session);
  await transport.call(pattern, data, rpc).catch(() => undefined);
  return trace(rpc, gate);
}

function throughBare(bare: BareAdmission, pattern: string, data: unknown, session: Session): Trace {
  const { rpc, gate } = onceRequest(pattern, session);
  try {
    bare.run(data, rpc);
  } catch (error) {
    expect(error).toBe(rpc.sessionRefusal);
  }
  return trace(rpc, gate);
}

function trace(rpc: OnceRpcContext, gate: FakeGate): Trace {
  return {
    admission: rpc.admission,
    refusal: rpc.sessionRefusal,
    guardsPassed: rpc.guardsPassed,
    resumed: gate.resumed,
  };
}

describe('BareAdmission', () => {
  beforeEach(() => ran.splice(0));

  describe('given a standalone microservice whose commands carry nothing but once’s own pieces', () => {
    const SESSIONS: Session[] = ['bound', 'resumable', 'unbound, bad token', 'fenced'];
    const PATTERNS = ['plain.positional', 'plain.layout', 'plain.keyed'];

    it('then every command has one', async () => {
      const { app, bare } = await start(PlainController);
      try {
        expect([...bare.keys()].sort()).toEqual([...PATTERNS].sort());
      } finally {
        await app.close();
      }
    });

    it.each(SESSIONS)(
      'when a request arrives on a connection %s, then it leaves the same ticket, refusal, stage mark and resume as NestJS’s pipeline',
      async (session) => {
        const { app, transport, bare } = await start(PlainController);
        try {
          for (const pattern of PATTERNS) {
            const data = { amount: 3, memo: 'x' };
            const expected = await throughNest(transport, pattern, data, session);
            const actual = throughBare(bare.get(pattern)!, pattern, data, session);
            expect(actual).toEqual(expected);
            if (session === 'unbound, bad token') {
              expect(actual.refusal).toBeInstanceOf(NotBoundException);
            } else if (session === 'fenced') {
              expect(actual.refusal).toBeInstanceOf(SessionEvictedException);
            } else {
              expect(actual.admission).toBeDefined();
            }
          }
        } finally {
          await app.close();
        }
      },
    );
  });

  it.each(CASES)(
    'given a command with a $name, then it has none, and NestJS runs it',
    async ({ controller, runs, refused, ...extra }) => {
      const { app, transport, bare } = await start(controller, extra);
      try {
        expect(bare.get('case.command')).toBeUndefined();
        const { rpc } = onceRequest('case.command', refused ? 'fenced' : 'bound');
        await transport.call('case.command', { amount: 1 }, rpc).catch(() => undefined);
        expect(rpc.admission === undefined).toBe(refused === true);
        expect(ran).toEqual(runs);
      } finally {
        await app.close();
      }
    },
  );

  it('given a hybrid application (a microservice beside HTTP), then no command has one: its configuration is out of reach', async () => {
    @Module({
      imports: [DiscoveryModule],
      controllers: [PlainController],
      providers: [HandlerExplorer],
    })
    class HybridModule {}
    const moduleRef = await Test.createTestingModule({ imports: [HybridModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    app.connectMicroservice({ strategy: new InProcessTransport() });
    await app.init();
    try {
      expect(moduleRef.get(HandlerExplorer).bareAdmissions().size).toBe(0);
    } finally {
      await app.close();
    }
  });
});
