import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { EpochAheadException } from '../exceptions/epoch-ahead.exception';
import { type GatewayException } from '../exceptions/gateway.exception';
import { InvalidRequestException } from '../exceptions/invalid-request.exception';
import { SessionEvictedException } from '../exceptions/session-evicted.exception';
import { type OnceRpcContext } from '../once-rpc-context';
import { type FenceVerdict, fenceVerdict } from '../session-verdict';
import { onceRequestOf } from './once-request';

/**
 * The epoch fence, the second guard of every `@Command` and `@Query`: against
 * the client table as it stands when the guard runs, the request's session
 * must be the table's (see {@link fenceVerdict}: NO_SESSION, EXPIRED,
 * SESSION_TOO_LOW, EPOCH_AHEAD, or INVALID_REQUEST for a header naming
 * another client than the connection's).
 *
 * The gateway judges the same rule before it looks for a duplicate; this
 * guard holds it at the request's place in the pipeline, after any global
 * guard that awaited something while the table moved on.
 */
@Injectable()
export class EpochFenceGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = onceRequestOf(context);
    if (request === 'not-once') return true;
    if (request === 'foreign') return false;
    checkEpochFence(request);
    return true;
  }
}

/**
 * The rule of {@link EpochFenceGuard} for a once request: throws (and
 * records) the fence's refusal. Also run directly by an admission that needs
 * no NestJS pipeline (`BareAdmission`).
 */
export function checkEpochFence(request: OnceRpcContext): void {
  const verdict = fenceVerdict(request.sessionFacts());
  if (verdict.kind !== 'pass') throw request.refuseSession(fenceRefusal(verdict));
}

/** The exception that carries a fence verdict to the gateway. */
export function fenceRefusal(verdict: Exclude<FenceVerdict, { kind: 'pass' }>): GatewayException {
  switch (verdict.kind) {
    case 'invalid-request':
      return new InvalidRequestException(verdict.detail);
    case 'evicted':
      return new SessionEvictedException(verdict.reason, verdict.watermark);
    case 'epoch-ahead':
      return new EpochAheadException(verdict.watermark);
  }
}
