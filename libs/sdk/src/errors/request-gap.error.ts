import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** REQUEST_GAP: The request number skipped numbers. A client bug: never retried. */
export class RequestGapError extends ProtocolStatusError {
  override readonly name = 'RequestGapError';
  declare readonly code: 'REQUEST_GAP';

  constructor(message: string) {
    super(Status.RequestGap, message);
  }
}
