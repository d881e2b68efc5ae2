import { SetMetadata } from '@nestjs/common';
import { ONCE_ADMIT_METADATA } from '../once.constants';

/**
 * Marks the admission step of a command: called once, live, before the command
 * is journaled, with `(data, ctx: AdmissionContext)`; what it returns is
 * journaled in place of the data. This is where randomness, clocks and slow
 * work belong (a password becomes a salted hash here, so plaintext never
 * reaches the journal). A throw commits a refusal.
 */
export const Admit = (pattern: string): MethodDecorator =>
  SetMetadata(ONCE_ADMIT_METADATA, { pattern });
