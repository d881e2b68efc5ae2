import { OnceError } from './once.error';

/**
 * The identity file exists but cannot be read as one: not JSON, a missing or
 * ill-typed field, an unknown version. The SDK refuses to guess a session from
 * it (a wrong guess could resend a request under a new number); the operator
 * decides whether to delete it.
 */
export class IdentityFileCorruptError extends OnceError {
  override readonly name = 'IdentityFileCorruptError';
  declare readonly code: 'IDENTITY_FILE_CORRUPT';

  constructor(
    readonly path: string,
    detail: string,
  ) {
    super('IDENTITY_FILE_CORRUPT', `identity file ${path} is corrupt: ${detail}`);
  }
}
