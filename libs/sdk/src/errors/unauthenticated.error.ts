import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** UNAUTHENTICATED: REGISTER refused: wrong credentials or a disabled user. Nothing was journaled. */
export class UnauthenticatedError extends ProtocolStatusError {
  override readonly name = 'UnauthenticatedError';
  declare readonly code: 'UNAUTHENTICATED';

  constructor(message: string) {
    super(Status.Unauthenticated, message);
  }
}
