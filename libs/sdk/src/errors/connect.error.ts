import { OnceError } from './once.error';

/**
 * No connection to the node could be established: the first attempt of
 * `OnceClient.connect`, or every reconnect attempt (`reconnect.maxAttempts`),
 * failed at the transport level. `cause` holds the last socket error.
 */
export class ConnectError extends OnceError {
  override readonly name = 'ConnectError';
  declare readonly code: 'CONNECT_FAILED';

  constructor(message: string, options?: { cause?: unknown }) {
    super('CONNECT_FAILED', message, options);
  }
}
