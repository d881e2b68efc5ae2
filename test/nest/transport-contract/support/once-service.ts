import { Controller, type DynamicModule, Module, UseFilters, UseGuards } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import {
  Admit,
  type ApplyContext,
  Command,
  type ModuleState,
  ONCE_AUTHENTICATOR,
  OnceModule,
  Query,
  ReplicatedState,
} from '@once/framework';
import { StaticAuthenticator } from '@once/testing';
import { EMPTY, from, map, type Observable, of, timer } from 'rxjs';
import {
  ClassReportedFailure,
  ClassReportingFilter,
  CrashingGuard,
  MethodReportedFailure,
  MethodReportingFilter,
  ReportedFailure,
  ReportingGuard,
  SECRETS,
  TenantGuard,
  sumOf,
} from './contract-enhancers';

/** Users of the once service: alice is user 1. */
export const USERS = { alice: 'pw' } as const;

/** What the once service's apply steps did, replicated. */
@ReplicatedState('contract')
export class ContractState implements ModuleState {
  notifications = 0;
  /** Ops of every apply step that ran, by pattern. */
  applied: Array<{ pattern: string; op: number }> = [];

  toSnapshot(): unknown {
    return { notifications: this.notifications, applied: this.applied };
  }
  fromSnapshot(snapshot: unknown): void {
    const { notifications, applied } = snapshot as ContractState;
    this.notifications = notifications;
    this.applied = [...applied];
  }
}

/**
 * The NestJS TCP service's scenarios on once: changes are @Command (applied
 * exactly once, replayed), reads are @Query. Same patterns, same bodies.
 */
@Controller()
export class OnceContractController {
  constructor(private readonly state: ContractState) {}

  private note(pattern: string, ctx: ApplyContext): void {
    this.state.applied.push({ pattern, op: ctx.op });
  }

  @Command('sum.of')
  sumOfStream(data: number[], ctx: ApplyContext): Observable<number> {
    this.note('sum.of', ctx);
    return of(sumOf(data));
  }

  @Query('sum.of.read')
  sumOfRead(data: number[]): Observable<number> {
    return of(sumOf(data));
  }

  @Command('sum.empty')
  empty(): Observable<never> {
    return EMPTY;
  }

  @Command('sum.void')
  nothing(): void {}

  @Query('sum.async')
  async asyncSum(data: number[]): Promise<number> {
    return Promise.resolve(sumOf(data));
  }

  @Command('sum.later')
  later(data: number[]): Observable<number> {
    return timer(1).pipe(map(() => sumOf(data)));
  }

  @Query('sum.later.read')
  laterRead(data: number[]): Observable<number> {
    return timer(1).pipe(map(() => sumOf(data)));
  }

  @Command('sum.stream')
  stream(data: number[], ctx: ApplyContext): Observable<number> {
    this.note('sum.stream', ctx);
    return from(data);
  }

  @Query('sum.stream.read')
  streamRead(data: number[]): Observable<number> {
    return from(data);
  }

  @Command({ cmd: 'sum' })
  sum(data: number[]): number {
    return sumOf(data);
  }

  @Command({ cmd: 'sum', scope: 'all' })
  sumAll(data: number[]): number {
    return sumOf(data);
  }

  @Query({ cmd: 'total', scope: 'all' })
  total(data: number[]): number {
    return sumOf(data);
  }

  @Command('notification')
  notified(): void {
    this.state.notifications++;
  }

  @Query('contract.state')
  read(): unknown {
    return this.state.toSnapshot();
  }

  @Command('seq.check')
  checkSeq(): never {
    throw new RpcException({ code: 'INVALID_SEQ', message: 'seq must be a number', seq: 'x' });
  }

  @Query('seq.read')
  readSeq(): never {
    throw new RpcException({ code: 'INVALID_SEQ', message: 'seq must be a number', seq: 'x' });
  }

  @Command('order.find')
  findOrder(): never {
    throw new RpcException('no such order');
  }

  @UseGuards(TenantGuard)
  @Command('order.place')
  placeOrder(data: { tenant: string }): string {
    return `placed for ${data.tenant}`;
  }

  @Command('secret.crash')
  crash(_data: unknown, ctx: ApplyContext): never {
    this.note('secret.crash', ctx);
    throw new Error(`connect failed (${SECRETS.apply})`);
  }

  @Query('secret.read')
  crashRead(): never {
    throw new Error(`replica down (${SECRETS.query})`);
  }

  @UseGuards(CrashingGuard)
  @Command('secret.guard')
  guarded(): string {
    return 'never';
  }

  @Admit('secret.admit')
  admitCrash(): never {
    throw new Error(`cannot sign (${SECRETS.admit})`);
  }

  @Command('secret.admit')
  admitted(): string {
    return 'never';
  }

  @Command('report.global')
  reportGlobal(): never {
    throw new ReportedFailure('thrown by the handler');
  }

  @UseGuards(ReportingGuard)
  @Command('report.admission')
  reportAtAdmission(): string {
    return 'never';
  }
}

/** Handlers whose throws a class-level and a method-level filter catch. */
@Controller()
@UseFilters(new ClassReportingFilter())
export class OnceFilteredController {
  @Command('report.class')
  reportClass(): never {
    throw new ClassReportedFailure('thrown for the class filter');
  }

  @UseFilters(MethodReportingFilter)
  @Command('report.method')
  reportMethod(): never {
    throw new MethodReportedFailure('thrown for the method filter');
  }
}

@Module({})
export class OnceContractModule {
  static register(dataDir: string): DynamicModule {
    return {
      module: OnceContractModule,
      imports: [OnceModule.forRoot({ dataDir })],
      controllers: [OnceContractController, OnceFilteredController],
      providers: [
        ContractState,
        TenantGuard,
        CrashingGuard,
        ReportingGuard,
        { provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(USERS) },
      ],
    };
  }
}
