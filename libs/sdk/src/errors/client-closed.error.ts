import { OnceError } from './once.error';

/**
 * The client is closed (by `close()`, or after a fatal error): the request was
 * not sent, and never will be.
 */
export class ClientClosedError extends OnceError {
  override readonly name = 'ClientClosedError';
  declare readonly code: 'CLIENT_CLOSED';

  constructor(message = 'the client is closed', options?: { cause?: unknown }) {
    super('CLIENT_CLOSED', message, options);
  }
}
