import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** VERSION_UNSUPPORTED: The node does not serve protocol version 1; the node closed the connection. */
export class VersionUnsupportedError extends ProtocolStatusError {
  override readonly name = 'VersionUnsupportedError';
  declare readonly code: 'VERSION_UNSUPPORTED';

  constructor(message: string) {
    super(Status.VersionUnsupported, message);
  }
}
