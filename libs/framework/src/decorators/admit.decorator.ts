import { SetMetadata } from '@nestjs/common';
import { type OncePattern, routeOf } from '../once-pattern';
import { ONCE_ADMIT_METADATA } from '../once.constants';

/**
 * Marks the admission step of a command: called once, live, before the command
 * is journaled, with `(data, ctx: AdmissionContext)`; what it returns is
 * journaled in place of the data. This is where randomness, clocks and slow
 * work belong (a password becomes a salted hash here, so plaintext never
 * reaches the journal). A throw commits a refusal: a CommandError's or an
 * RpcException's as it says, anything else ADMISSION_FAILED with an error id
 * (the details go to the server log). `pattern` is the @Command's, a name or
 * an object.
 */
export const Admit = (pattern: OncePattern, options: AdmitOptions = {}): MethodDecorator =>
  SetMetadata(ONCE_ADMIT_METADATA, {
    pattern: routeOf(pattern),
    secretBody: options.secretBody === true,
  });

/** How the journal treats the request of a command with an admission step. */
export interface AdmitOptions {
  /**
   * The request's body carries a secret (a password) that this step turns
   * into something slow to guess (a salted scrypt hash). Then the journal
   * (and in cluster mode the stream) keeps no checksum of the body the
   * client sent, which a fast hash would make searchable for the secret
   * offline; its REPLY still carries the request's `checksum_body`. The
   * cost: a retry under the same request number gets the cached reply
   * whatever its body (no REQUEST_CONFLICT for this command once it
   * committed). Default false.
   */
  readonly secretBody?: boolean;
}
