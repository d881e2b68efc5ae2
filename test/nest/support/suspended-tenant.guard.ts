import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';

/**
 * An application-wide guard (`{ provide: APP_GUARD, useClass: SuspendedTenantGuard }`):
 * nothing a suspended tenant sends over rpc gets through. HTTP passes.
 */
@Injectable()
export class SuspendedTenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'rpc') return true;
    if (context.switchToRpc().getData<{ tenant?: unknown } | null>()?.tenant === 'suspended') {
      throw new RpcException({ code: 'TENANT_SUSPENDED', message: 'the tenant is suspended' });
    }
    return true;
  }
}
