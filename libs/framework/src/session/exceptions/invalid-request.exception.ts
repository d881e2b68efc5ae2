import { GatewayException } from './gateway.exception';

/** A header rule of PROTOCOL.md is broken: answered INVALID_REQUEST. */
export class InvalidRequestException extends GatewayException {
  readonly code = 'INVALID_REQUEST';
  constructor(readonly detail: string) {
    super(detail);
  }
}
