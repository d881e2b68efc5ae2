import { EvictionReason } from '@once/protocol';
import { SessionEvictedError } from './session-evicted.error';

/** Eviction SESSION_TOO_LOW: A newer REGISTER of this client id committed elsewhere: this session is fenced. */
export class SessionTooLowError extends SessionEvictedError {
  override readonly name = 'SessionTooLowError';
  declare readonly code: 'SESSION_TOO_LOW';

  constructor(message: string) {
    super(EvictionReason.SessionTooLow, message);
  }
}
