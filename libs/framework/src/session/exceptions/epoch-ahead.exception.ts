import { EPOCH_AHEAD_MESSAGE } from '@once/engine/internal';
import { GatewayException } from './gateway.exception';

/** The request names an epoch newer than the table's: a client bug, answered EPOCH_AHEAD. */
export class EpochAheadException extends GatewayException {
  readonly code = 'EPOCH_AHEAD';
  constructor(readonly watermark: number) {
    super(EPOCH_AHEAD_MESSAGE);
  }
}
