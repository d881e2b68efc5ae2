import { EvictionReason } from '@once/protocol';
import { SessionEvictedError } from './session-evicted.error';

/** Eviction LOGGED_OUT: The session logged out from another connection. */
export class LoggedOutError extends SessionEvictedError {
  override readonly name = 'LoggedOutError';
  declare readonly code: 'LOGGED_OUT';

  constructor(message: string) {
    super(EvictionReason.LoggedOut, message);
  }
}
