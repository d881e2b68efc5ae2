import { OnceError } from './once.error';

/**
 * A broken invariant of the SDK itself (request numbers out of order, an entry
 * in two places of the pipeline, ...). Never caused by the node or the caller:
 * going on could resend a request under a wrong number, so the SDK stops loudly.
 */
export class SdkInvariantError extends OnceError {
  override readonly name = 'SdkInvariantError';
  declare readonly code: 'SDK_INVARIANT';

  constructor(message: string) {
    super('SDK_INVARIANT', message);
  }
}
