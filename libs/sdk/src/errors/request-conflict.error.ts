import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** REQUEST_CONFLICT: The request number was already used for a different body. A client bug: never retried. */
export class RequestConflictError extends ProtocolStatusError {
  override readonly name = 'RequestConflictError';
  declare readonly code: 'REQUEST_CONFLICT';

  constructor(message: string) {
    super(Status.RequestConflict, message);
  }
}
