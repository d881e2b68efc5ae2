import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { NotBoundException } from '../exceptions/not-bound.exception';
import { type OnceRpcContext } from '../once-rpc-context';
import { resumeVerdict } from '../session-verdict';
import { onceRequestOf } from './once-request';

/**
 * The resume lookup (implicit rebind), the first guard of every `@Command` and
 * `@Query`. An unbound connection presenting a non-zero client, session and
 * request and a resume token the node minted for exactly that (client,
 * session) is bound to the session as its holder; any other connection
 * holding it is sent EVICTION SUPERSEDED. A missing or wrong token is
 * NOT_BOUND, the same answer as for a session that does not exist, so a
 * caller learns nothing about other sessions. With a valid token for an
 * epoch that is not the table's, the connection stays unbound and the epoch
 * fence answers.
 *
 * The rule itself is {@link resumeVerdict}; the gateway applies the same
 * function before it looks for a duplicate, so a retry on a resumed
 * connection is answered from the cache, and this guard then finds the
 * connection bound. Handlers of other transports pass; a `@Command` or `@Query`
 * reached without a once request is refused (fail closed).
 */
@Injectable()
export class ResumeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = onceRequestOf(context);
    if (request === 'not-once') return true;
    if (request === 'foreign') return false;
    checkResume(request);
    return true;
  }
}

/**
 * The rule of {@link ResumeGuard} for a once request: binds a resuming
 * connection, throws (and records) NOT_BOUND. Also run directly by an
 * admission that needs no NestJS pipeline (`BareAdmission`).
 */
export function checkResume(request: OnceRpcContext): void {
  const verdict = resumeVerdict(request.sessionFacts());
  if (verdict.kind === 'not-bound') throw request.refuseSession(new NotBoundException());
  if (verdict.kind === 'resume') {
    request.getGate().bindResumed(request.getConnection().id, verdict.binding);
  }
}
