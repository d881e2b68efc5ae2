import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** NOT_BOUND: A session-bound operation on a connection without a session. The SDK answers it itself (REGISTER to resume); callers see it only in diagnostics. */
export class NotBoundError extends ProtocolStatusError {
  override readonly name = 'NotBoundError';
  declare readonly code: 'NOT_BOUND';

  constructor(message: string) {
    super(Status.NotBound, message);
  }
}
