import { type ClientId } from '@once/protocol';

/**
 * What a journal entry records. Values are part of the on-disk format: never
 * renumber one, only add new ones.
 *
 * Client requests use the operation codes of PROTOCOL.md (REGISTER, LOGOUT,
 * COMMAND); entries the node journals on its own start at 16 so they can never
 * collide with a future wire operation.
 */
export enum EntryKind {
  Register = 1,
  Logout = 2,
  Command = 3,
  /** A session's connection-bound holdings are released (see "Transport disconnect"). */
  Release = 16,
  /** The node started (and may have changed its settings). */
  Boot = 17,
  /**
   * The code in force from this op on: each replicated state with its
   * version, and the command patterns dispatched (see the engine's
   * `CodeManifest`). Journaled when the code changed.
   */
  Manifest = 18,
  /**
   * Checksums of the replies of commands applied just before, so that a
   * replay or a follower that computes another reply stops there.
   */
  ReplyCheck = 19,
  /**
   * An HTTP request carrying an Idempotency-Key: the request, the state
   * change and the response in one entry (see the engine's `HttpKeyTable`).
   * `requestChecksum` holds the request's fingerprint, the body its scope,
   * key, command pattern, data and statuses.
   */
  HttpRequest = 20,
}

/**
 * True when `value` is one of the {@link EntryKind} codes this build knows.
 * A switch rather than a set: replay asks it for every entry it reads.
 */
export function isEntryKind(value: number): value is EntryKind {
  switch (value as EntryKind) {
    case EntryKind.Register:
    case EntryKind.Logout:
    case EntryKind.Command:
    case EntryKind.Release:
    case EntryKind.Boot:
    case EntryKind.Manifest:
    case EntryKind.ReplyCheck:
    case EntryKind.HttpRequest:
      return true;
    default:
      return false;
  }
}

/** An entry as the engine hands it to `append`: everything but its op and time. */
export interface EntryDraft {
  kind: EntryKind;
  /** The requesting client; ZERO_CLIENT_ID for system entries. */
  client: ClientId;
  /** Session epoch the request was admitted under (0 if none). */
  session: number;
  /** Request number (0 if none). */
  request: number;
  /** u32. */
  userId: number;
  /** 16 bytes: `checksum_body` of the client's request (ZERO_CHECKSUM if none). */
  requestChecksum: Buffer;
  /** Opaque payload, interpreted by the engine only. */
  body: Buffer;
}

/**
 * An entry with the place the journal gave it. `op` and `timestamp` come from
 * the journal, never from a client, so a replay applies the same values.
 */
export interface JournalEntry extends EntryDraft {
  /** Position in the journal: 1, 2, 3, … without gaps. */
  readonly op: number;
  /** Journal time in ns since the Unix epoch; never decreases along the ops. */
  readonly timestamp: bigint;
}
