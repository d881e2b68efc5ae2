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
 * LOGGED_OUT, SESSION_TOO_LOW, SUPERSEDED); SESSION_RESET (a REGISTER found a
 * new entry under the client id: the node no longer knew the session);
 * CLIENT_OWNED_BY_OTHER_USER; CLIENT_CLOSED (`close()` gave up waiting); or the
 * code of the error that stopped the client (CONNECT_FAILED, UNAUTHENTICATED,
 * IDENTITY_FILE_WRITE, ...). With an identity file, a command failed for one of
 * the last two kinds stays in the file, and a later process settles it.
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
