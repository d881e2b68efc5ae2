import { GatewayException } from './gateway.exception';

/**
 * A session-bound operation on an unbound connection (no valid resume token
 * either). Deliberately says nothing about whether the session exists.
 */
export class NotBoundException extends GatewayException {
  readonly code = 'NOT_BOUND';
  constructor() {
    super('this connection holds no session: REGISTER, or resume with a valid token');
  }
}
