import { OnceError } from './once.error';

/**
 * A request's data cannot be sent: it is not JSON-serialisable (a cycle, a
 * bigint) or its frame would exceed `frameBytesMax`. Rejected before anything
 * is sent, so no request number is used.
 */
export class InvalidPayloadError extends OnceError {
  override readonly name = 'InvalidPayloadError';
  declare readonly code: 'INVALID_PAYLOAD';

  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_PAYLOAD', message, options);
  }
}
