import { type ClientId } from '@once/protocol';

/** What a bound connection holds: a session, as of one epoch, for its user. */
export interface SessionBinding {
  readonly client: ClientId;
  readonly epoch: number;
  readonly userId: number;
}
