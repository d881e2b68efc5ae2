import {
  type ArgumentsHost,
  type CanActivate,
  Catch,
  type ExecutionContext,
  Injectable,
  type RpcExceptionFilter,
} from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { type Observable, throwError } from 'rxjs';

/** What a handler's error messages hold that no client may ever read. */
export const SECRETS = {
  apply: 'db password=hunter2',
  query: 'replica dsn=postgres://ro:s3cret@db',
  guard: 'ldap bind password=Tr0ub4dor',
  admit: 'vault token=hvs.CAESIJ',
} as const;

/** The sum the NestJS integration apps compute. */
export function sumOf(data: number[]): number {
  return (data ?? []).reduce((a, b) => a + b, 0);
}

/** Thrown for the global filter. */
export class ReportedFailure extends Error {}
/** Thrown for the class-level filter. */
export class ClassReportedFailure extends Error {}
/** Thrown for the method-level filter. */
export class MethodReportedFailure extends Error {}

/** One call of a contract filter: which one, with what, on which kind of host. */
export interface FilterCall {
  readonly filter: 'global' | 'class' | 'method';
  readonly message: string;
  readonly hostType: string;
  readonly data: unknown;
}

/** Every filter call of every contract app, in order. */
export const filterCalls: FilterCall[] = [];

function record(filter: FilterCall['filter'], exception: Error, host: ArgumentsHost) {
  filterCalls.push({
    filter,
    message: exception.message,
    hostType: host.getType(),
    data: host.switchToRpc().getData<unknown>(),
  });
  return throwError(() => ({ code: 'REPORTED', message: `reported by the ${filter} filter` }));
}

/** Given to `app.useGlobalFilters`. */
@Catch(ReportedFailure)
export class GlobalReportingFilter implements RpcExceptionFilter<ReportedFailure> {
  catch(exception: ReportedFailure, host: ArgumentsHost): Observable<never> {
    return record('global', exception, host);
  }
}

/** Given to `@UseFilters` on a controller (as an instance). */
@Catch(ClassReportedFailure)
export class ClassReportingFilter implements RpcExceptionFilter<ClassReportedFailure> {
  catch(exception: ClassReportedFailure, host: ArgumentsHost): Observable<never> {
    return record('class', exception, host);
  }
}

/** Given to `@UseFilters` on a method (as a class: NestJS instantiates it in the module). */
@Catch(MethodReportedFailure)
export class MethodReportingFilter implements RpcExceptionFilter<MethodReportedFailure> {
  catch(exception: MethodReportedFailure, host: ArgumentsHost): Observable<never> {
    return record('method', exception, host);
  }
}

/** A suspended tenant is refused with the team's error object. */
@Injectable()
export class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const data = context.switchToRpc().getData<{ tenant?: string } | null>();
    if (data?.tenant === 'suspended') {
      throw new RpcException({ code: 'TENANT_SUSPENDED', message: 'the tenant is suspended' });
    }
    return true;
  }
}

/** A guard whose directory lookup crashes, with a secret in the message. */
@Injectable()
export class CrashingGuard implements CanActivate {
  canActivate(): boolean {
    throw new Error(`directory unreachable (${SECRETS.guard})`);
  }
}

/** A guard that throws what the global filter reports. */
@Injectable()
export class ReportingGuard implements CanActivate {
  canActivate(): boolean {
    throw new ReportedFailure('refused at admission');
  }
}
