import { EvictionReason } from '@once/protocol';
import { GatewayException } from './gateway.exception';

/** The request's session is gone or fenced: answered with an EVICTION, and the connection is unbound. */
export class SessionEvictedException extends GatewayException {
  readonly code = 'SESSION_EVICTED';
  constructor(
    readonly reason: EvictionReason,
    readonly watermark: number,
  ) {
    super(`session evicted: ${EvictionReason[reason]}`);
  }
}
