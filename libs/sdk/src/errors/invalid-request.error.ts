import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** INVALID_REQUEST: A header or body rule of PROTOCOL.md was broken. A client bug: never retried. */
export class InvalidRequestError extends ProtocolStatusError {
  override readonly name = 'InvalidRequestError';
  declare readonly code: 'INVALID_REQUEST';

  constructor(message: string) {
    super(Status.InvalidRequest, message);
  }
}
