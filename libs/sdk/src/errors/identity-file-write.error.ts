import { OnceError } from './once.error';

/**
 * The identity file could not be written. Commands must be persisted before
 * they are sent, so the client stops: it cannot keep its promise to recover
 * them after a crash.
 */
export class IdentityFileWriteError extends OnceError {
  override readonly name = 'IdentityFileWriteError';
  declare readonly code: 'IDENTITY_FILE_WRITE';

  constructor(
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(
      'IDENTITY_FILE_WRITE',
      `identity file ${path} could not be written: ${describe(options?.cause)}`,
      options,
    );
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
