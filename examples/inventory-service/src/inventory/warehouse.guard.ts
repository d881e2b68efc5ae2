import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { CommandError } from '@once/framework';
import { OPEN_WAREHOUSES } from './open-warehouses';

/**
 * Refuses stock movements at a warehouse this deployment does not serve.
 *
 * On a `@Command` a guard runs at admission: once, when a new request number
 * arrives, before anything is journaled; never at replay. Its "no" is a
 * committed refusal: the request number is used up and a retry of it gets
 * the same refusal, even from a node restarted with other warehouses. The
 * `CommandError` gives the refusal a code of the team's own; a guard that
 * returned `false` would be refused as `FORBIDDEN`.
 *
 * The session guards have run before it, so `context.switchToRpc().getContext()`
 * (an `OnceRpcContext`) already knows the caller's user id, should a guard
 * need it.
 */
@Injectable()
export class WarehouseGuard implements CanActivate {
  constructor(@Inject(OPEN_WAREHOUSES) private readonly open: ReadonlySet<string>) {}

  canActivate(context: ExecutionContext): boolean {
    const data = context.switchToRpc().getData<{ warehouse?: unknown } | null>();
    const warehouse = data?.warehouse;
    if (typeof warehouse === 'string' && this.open.has(warehouse)) return true;
    throw new CommandError(
      'WAREHOUSE_CLOSED',
      `this service takes no work for warehouse ${JSON.stringify(warehouse ?? null)}`,
    );
  }
}
