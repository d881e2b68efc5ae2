import { type JournalEntry } from '@once/journal/internal';
import { type ClientId } from '@once/protocol';

/**
 * Everything a command handler may know besides its state and its data.
 *
 * Every field comes from the journal entry being applied, so a replay hands the
 * handler exactly the context the live commit did. There is deliberately no
 * clock here: `timestamp` is the entry's journal time, the same on every replay.
 */
export interface ApplyContext {
  /** Journal op of the entry being applied. */
  readonly op: number;
  /** Journal timestamp of the entry, ns since the Unix epoch. */
  readonly timestamp: bigint;
  /** The session's user (0 for system entries). */
  readonly userId: number;
  /** The session's client id (the zero id for system entries). */
  readonly client: ClientId;
  /**
   * The version in force at this op of the module (replicated state) the
   * handler belongs to: 1 until a newer version of the code was journaled,
   * and the same for this entry on every replay and every node. Branch on
   * it to keep the old rule for old entries (`ctx.version < 2 ? old : new`).
   * A handler that belongs to no state sees 1.
   */
  readonly version: number;
  /** Every state's version in force at this op, by state name. */
  readonly versions: Readonly<Record<string, number>>;
}

/** The versions of a journal before any MANIFEST entry: every state at 1. */
export const NO_VERSIONS: Readonly<Record<string, number>> = Object.freeze({});

/** The user id of entries the node itself journals (genesis, releases, boots). */
export const SYSTEM_USER_ID = 0;

/**
 * The context a handler (or a connection-scoped release) gets for `entry`.
 * Built from the entry alone, so replay hands out the same one; a session
 * other than the entry's own (one it evicted, say) acts as the system user.
 * `versions` and `version` are those in force at the entry's op (the
 * applier knows them; see {@link ApplyContext.version}).
 */
export function applyContextOf(
  entry: JournalEntry,
  client: ClientId = entry.client,
  versions: Readonly<Record<string, number>> = NO_VERSIONS,
  version = 1,
): ApplyContext {
  return {
    op: entry.op,
    timestamp: entry.timestamp,
    userId: client === entry.client ? entry.userId : SYSTEM_USER_ID,
    client,
    version,
    versions,
  };
}
