import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** CLIENT_OWNED_BY_OTHER_USER: The client id belongs to another user's session. */
export class ClientOwnedByOtherUserError extends ProtocolStatusError {
  override readonly name = 'ClientOwnedByOtherUserError';
  declare readonly code: 'CLIENT_OWNED_BY_OTHER_USER';

  constructor(message: string) {
    super(Status.ClientOwnedByOtherUser, message);
  }
}
