import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** BAD_FRAME: A frame failed a framing, checksum or size check; the node closed the connection. A bug of the SDK or of the path to the node. */
export class BadFrameError extends ProtocolStatusError {
  override readonly name = 'BadFrameError';
  declare readonly code: 'BAD_FRAME';

  constructor(message: string) {
    super(Status.BadFrame, message);
  }
}
