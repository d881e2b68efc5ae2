import { EvictionReason } from '@once/protocol';
import { SessionEvictedError } from './session-evicted.error';

/** Eviction EXPIRED: The session was idle past the node's session lifetime. */
export class ExpiredError extends SessionEvictedError {
  override readonly name = 'ExpiredError';
  declare readonly code: 'EXPIRED';

  constructor(message: string) {
    super(EvictionReason.Expired, message);
  }
}
