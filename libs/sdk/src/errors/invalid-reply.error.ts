import { OnceError } from './once.error';

/**
 * The node sent something the protocol does not allow (an unknown status, a
 * body that is not an outcome, a REGISTER reply without its fields). The SDK
 * cannot interpret it, so it does not guess.
 */
export class InvalidReplyError extends OnceError {
  override readonly name = 'InvalidReplyError';
  declare readonly code: 'INVALID_REPLY';

  constructor(message: string) {
    super('INVALID_REPLY', message);
  }
}
