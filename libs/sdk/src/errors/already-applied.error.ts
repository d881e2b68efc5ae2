import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/**
 * ALREADY_APPLIED: the command was applied (exactly once), but its reply has left
 * the session's reply cache, so its result cannot be told any more. Treat it as
 * done; read the state with a query if the result matters.
 *
 * Only an in-doubt request retried after more than `ring` later requests
 * committed can get this answer; with `inFlightMax` ≤ the node's ring (the
 * default) the SDK never causes it.
 */
export class AlreadyAppliedError extends ProtocolStatusError {
  override readonly name = 'AlreadyAppliedError';
  declare readonly code: 'ALREADY_APPLIED';

  constructor(
    /** The request number that was applied. */
    readonly request: number,
    message = `request ${request} was applied; its result is no longer known`,
  ) {
    super(Status.AlreadyApplied, message);
  }
}
