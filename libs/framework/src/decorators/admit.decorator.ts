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
export const Admit = (pattern: OncePattern): MethodDecorator =>
  SetMetadata(ONCE_ADMIT_METADATA, { pattern: routeOf(pattern) });
