import { type ClientEntry } from '@once/client-table/internal';
import { type ClientId, type EvictionReason } from '@once/protocol';
import { type SessionBinding } from './session-binding';

/**
 * What the session guards may ask of the gateway. Reads go to the client
 * table as it stands (the last applied op); the only write is binding a
 * connection, which is connection state, never table state.
 */
export interface SessionGate {
  tableEntry(client: ClientId): ClientEntry | undefined;
  /** Why a session without an entry is gone, if the node still knows (EXPIRED), else NO_SESSION. */
  goneReason(client: ClientId): EvictionReason;
  /** Constant-time check of an HMAC resume token. */
  verifyResumeToken(client: ClientId, session: number, token: Uint8Array): boolean;
  /** Binds `connectionId` to `binding`, superseding (EVICTION SUPERSEDED) any other holder. */
  bindResumed(connectionId: number, binding: SessionBinding): void;
}
