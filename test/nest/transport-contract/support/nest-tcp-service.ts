import { Controller, Injectable, Module, UseFilters, UseGuards } from '@nestjs/common';
import { EventPattern, MessagePattern, RpcException } from '@nestjs/microservices';
import { EMPTY, from, map, type Observable, of, timer } from 'rxjs';
import {
  ClassReportedFailure,
  ClassReportingFilter,
  MethodReportedFailure,
  MethodReportingFilter,
  ReportedFailure,
  ReportingGuard,
  SECRETS,
  TenantGuard,
  sumOf,
} from './contract-enhancers';

/** What the NestJS TCP service's handlers did. */
@Injectable()
export class TcpLedger {
  notifications = 0;
}

/**
 * The scenarios of NestJS's own TCP integration app (sum, streams, events,
 * RpcException, filters), written as a team writes them for NestJS TCP. The
 * once service (`once-service.ts`) answers the same patterns.
 */
@Controller()
export class NestTcpController {
  constructor(private readonly ledger: TcpLedger) {}

  @MessagePattern('sum.of')
  sumOfStream(data: number[]): Observable<number> {
    return of(sumOf(data));
  }

  @MessagePattern('sum.empty')
  empty(): Observable<never> {
    return EMPTY;
  }

  @MessagePattern('sum.void')
  nothing(): void {}

  @MessagePattern('sum.async')
  async asyncSum(data: number[]): Promise<number> {
    return Promise.resolve(sumOf(data));
  }

  @MessagePattern('sum.later')
  later(data: number[]): Observable<number> {
    return timer(1).pipe(map(() => sumOf(data)));
  }

  @MessagePattern('sum.stream')
  stream(data: number[]): Observable<number> {
    return from(data);
  }

  @MessagePattern({ cmd: 'sum' })
  sum(data: number[]): number {
    return sumOf(data);
  }

  @EventPattern('notification')
  notified(): void {
    this.ledger.notifications++;
  }

  @MessagePattern('seq.check')
  checkSeq(): never {
    throw new RpcException({ code: 'INVALID_SEQ', message: 'seq must be a number', seq: 'x' });
  }

  @MessagePattern('order.find')
  findOrder(): never {
    throw new RpcException('no such order');
  }

  @UseGuards(TenantGuard)
  @MessagePattern('order.place')
  placeOrder(data: { tenant: string }): string {
    return `placed for ${data.tenant}`;
  }

  @MessagePattern('secret.crash')
  crash(): never {
    throw new Error(`connect failed (${SECRETS.apply})`);
  }

  @MessagePattern('report.global')
  reportGlobal(): never {
    throw new ReportedFailure('thrown by the handler');
  }

  @UseGuards(ReportingGuard)
  @MessagePattern('report.admission')
  reportAtAdmission(): string {
    return 'never';
  }
}

/** Handlers whose throws a class-level and a method-level filter catch. */
@Controller()
@UseFilters(new ClassReportingFilter())
export class NestTcpFilteredController {
  @MessagePattern('report.class')
  reportClass(): never {
    throw new ClassReportedFailure('thrown for the class filter');
  }

  @UseFilters(MethodReportingFilter)
  @MessagePattern('report.method')
  reportMethod(): never {
    throw new MethodReportedFailure('thrown for the method filter');
  }
}

@Module({
  controllers: [NestTcpController, NestTcpFilteredController],
  providers: [TcpLedger, TenantGuard, ReportingGuard],
})
export class NestTcpContractModule {}
