import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { EvictionReason } from '@once/protocol';
import { EpochAheadException } from '../exceptions/epoch-ahead.exception';
import { InvalidRequestException } from '../exceptions/invalid-request.exception';
import { SessionEvictedException } from '../exceptions/session-evicted.exception';
import { OnceRpcContext } from '../once-rpc-context';

/**
 * The epoch fence. Against the client table as it stands:
 * - no entry for the client: EVICTION NO_SESSION (EXPIRED when it expired);
 * - the request's epoch, or the epoch this connection was bound under, below
 *   the entry's: EVICTION SESSION_TOO_LOW (a newer REGISTER fenced it);
 * - the request's epoch above the entry's: EPOCH_AHEAD.
 * An EVICTION unbinds the connection. On a bound connection the header's
 * client must be the binding's (INVALID_REQUEST otherwise).
 */
@Injectable()
export class EpochFenceGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const rpc = context.switchToRpc().getContext<unknown>();
    if (!(rpc instanceof OnceRpcContext)) return true;
    const { client, session } = rpc.getHeader();
    const binding = rpc.getBinding();
    if (binding && binding.client !== client) {
      throw new InvalidRequestException(
        'the header’s client is not the one this connection is bound to',
      );
    }
    const gate = rpc.getGate();
    const entry = gate.tableEntry(client);
    if (!entry) throw new SessionEvictedException(gate.goneReason(client), 0);
    if (session < entry.epoch || (binding !== undefined && binding.epoch < entry.epoch)) {
      throw new SessionEvictedException(EvictionReason.SessionTooLow, entry.watermark);
    }
    if (session > entry.epoch) throw new EpochAheadException(entry.watermark);
    return true;
  }
}
