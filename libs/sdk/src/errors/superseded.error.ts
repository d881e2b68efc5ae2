import { EvictionReason } from '@once/protocol';
import { SessionEvictedError } from './session-evicted.error';

/** Eviction SUPERSEDED: Another connection resumed this session. */
export class SupersededError extends SessionEvictedError {
  override readonly name = 'SupersededError';
  declare readonly code: 'SUPERSEDED';

  constructor(message: string) {
    super(EvictionReason.Superseded, message);
  }
}
