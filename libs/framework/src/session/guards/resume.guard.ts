import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { NotBoundException } from '../exceptions/not-bound.exception';
import { OnceRpcContext } from '../once-rpc-context';

/**
 * The resume lookup (implicit rebind). An unbound connection presenting a
 * non-zero client, session and request and a resume token the node minted
 * for exactly that (client, session) is bound to the session as its owner;
 * any other connection holding it is sent EVICTION SUPERSEDED. A missing or
 * wrong token is NOT_BOUND, the same answer as for a session that does not
 * exist, so a caller learns nothing about other sessions.
 *
 * With a valid token for an epoch that is not the table's (older, or a
 * session that ended), the connection stays unbound and the epoch fence
 * answers (SESSION_TOO_LOW, NO_SESSION).
 */
@Injectable()
export class ResumeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const rpc = context.switchToRpc().getContext<unknown>();
    if (!(rpc instanceof OnceRpcContext)) return true;
    if (rpc.getBinding()) return true;
    const { client, session, request, resumeToken } = rpc.getHeader();
    const gate = rpc.getGate();
    if (session === 0 || request === 0 || !gate.verifyResumeToken(client, session, resumeToken)) {
      throw new NotBoundException();
    }
    const entry = gate.tableEntry(client);
    if (entry && entry.epoch === session) {
      gate.bindResumed(rpc.getConnection().id, {
        client,
        epoch: entry.epoch,
        userId: entry.userId,
      });
    }
    return true;
  }
}
