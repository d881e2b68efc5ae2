import { EvictionReason } from '@once/protocol';
import { SessionEvictedError } from './session-evicted.error';

/** Eviction EVICTED: The client table was full and this session had the oldest last commit. */
export class EvictedError extends SessionEvictedError {
  override readonly name = 'EvictedError';
  declare readonly code: 'EVICTED';

  constructor(message: string) {
    super(EvictionReason.Evicted, message);
  }
}
