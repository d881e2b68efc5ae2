import { type ClientId } from '@once/protocol';

/**
 * What an admission step knows about the request it prepares.
 *
 * Admission runs live, once, before a command is journaled; unlike apply it may
 * use randomness, a clock or slow work (hashing a password with a fresh salt).
 * Its output is what the journal keeps, so replay never repeats it.
 */
export interface AdmissionContext {
  readonly pattern: string;
  /** The session's user (0 for system commands). */
  readonly userId: number;
  /** The session's client id (the zero id for system commands). */
  readonly client: ClientId;
}
