import { Status } from '@once/protocol';
import { ProtocolStatusError } from './protocol-status.error';

/** EPOCH_AHEAD: The request named an epoch newer than the node's. A client bug: never retried. */
export class EpochAheadError extends ProtocolStatusError {
  override readonly name = 'EpochAheadError';
  declare readonly code: 'EPOCH_AHEAD';

  constructor(message: string) {
    super(Status.EpochAhead, message);
  }
}
