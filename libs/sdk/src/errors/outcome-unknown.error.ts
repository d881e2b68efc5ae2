import { OnceError } from './once.error';

/**
 * The command was sent at least once and it cannot be told whether the node
 * applied it: its session ended (evicted, expired, fenced, ...) before an answer
 * arrived, or the client gave up (closed, could not reconnect).
 *
 * PROTOCOL.md forbids retrying such a request under a new session, so the SDK
 * never does: the application decides, e.g. by querying the state or by
 * re-sending with its own idempotency key (like `ledger.transfer`'s `reference`).
 *
 * `reason` is the eviction reason's protocol name (NO_SESSION, EVICTED, EXPIRED,
 * LOGGED_OUT, SESSION_TOO_LOW, SUPERSEDED) or one of the SDK's: SESSION_RESET
 * (the node's entry for the client id is not this session any more),
 * CLIENT_OWNED_BY_OTHER_USER, CLIENT_CLOSED, RECONNECT_FAILED, UNAUTHENTICATED,
 * IDENTITY_FILE_WRITE.
 */
export class OutcomeUnknownError extends OnceError {
  override readonly name = 'OutcomeUnknownError';
  declare readonly code: 'OUTCOME_UNKNOWN';

  constructor(
    /** The request number the command was sent under (never reused). */
    readonly request: number,
    readonly pattern: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      'OUTCOME_UNKNOWN',
      `request ${request} (${pattern}): outcome unknown (${reason}); it was not retried`,
      options,
    );
  }
}
