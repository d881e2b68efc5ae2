import { EVICTION_REASON_NAMES, type EvictionReason } from '@once/protocol';
import { OnceError } from './once.error';

/**
 * An EVICTION frame (PROTOCOL.md, "Eviction reasons"): the node says this client
 * no longer holds its session. `code` is the reason's protocol name.
 *
 * The SDK never rejects a command with this error directly: a lost session turns
 * every in-doubt command into an {@link OutcomeUnknownError} whose `cause` is
 * this error, and is announced by a `session-lost` event.
 */
export class SessionEvictedError extends OnceError {
  override readonly name: string = 'SessionEvictedError';

  constructor(
    readonly reason: EvictionReason,
    message: string,
  ) {
    super(EVICTION_REASON_NAMES[reason], message);
  }
}
