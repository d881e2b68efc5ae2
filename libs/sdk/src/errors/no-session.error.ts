import { EvictionReason } from '@once/protocol';
import { SessionEvictedError } from './session-evicted.error';

/** Eviction NO_SESSION: The node has no entry for this client: never registered, logged out, evicted or expired. */
export class NoSessionError extends SessionEvictedError {
  override readonly name = 'NoSessionError';
  declare readonly code: 'NO_SESSION';

  constructor(message: string) {
    super(EvictionReason.NoSession, message);
  }
}
