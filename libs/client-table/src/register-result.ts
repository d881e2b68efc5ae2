import { type ClientEntry } from './client-entry';

/**
 * The outcome of a committed REGISTER (PROTOCOL.md, "REGISTER").
 *
 * - `registered`: the session is now bound under `epoch` (= the REGISTER's op).
 *   `created` is false for a resume by the same user (watermark and replies kept,
 *   `previousEpoch` is the fenced epoch). `evicted` is the entry pushed out to make
 *   room for a new one at capacity: its connections get EVICTION reason EVICTED.
 * - `owned-by-other-user`: the client id belongs to another user's session; nothing
 *   changed. The gateway refuses this case before journaling, but the entry may have
 *   changed hands between its check and the commit, so the engine must handle it too.
 */
export type RegisterResult =
  | {
      readonly kind: 'registered';
      readonly epoch: number;
      readonly watermark: number;
      readonly created: boolean;
      readonly previousEpoch: number | undefined;
      readonly evicted: ClientEntry | undefined;
    }
  | { readonly kind: 'owned-by-other-user'; readonly ownerUserId: number };
