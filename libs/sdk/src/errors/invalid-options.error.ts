import { OnceError } from './once.error';

/** An {@link OnceClientOptions} value is not usable; the message names the option. */
export class InvalidOptionsError extends OnceError {
  override readonly name = 'InvalidOptionsError';
  declare readonly code: 'INVALID_OPTIONS';

  constructor(message: string) {
    super('INVALID_OPTIONS', message);
  }
}
