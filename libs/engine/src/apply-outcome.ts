import { type JournalEntry } from '@once/journal/internal';
import { type ClientId, type EvictionReason } from '@once/protocol';
import { type HttpApplied } from './http/http-request';

/** A session that ended while an entry was applied. */
export interface EndedSession {
  readonly client: ClientId;
  readonly epoch: number;
  readonly userId: number;
  /** The session's highest committed request number when it ended. */
  readonly watermark: number;
  readonly reason: EvictionReason.Evicted | EvictionReason.LoggedOut | EvictionReason.Expired;
}

/** A REGISTER that committed: the connection that sent it now holds this session. */
export interface RegisteredSession {
  readonly client: ClientId;
  readonly epoch: number;
  readonly userId: number;
  readonly watermark: number;
  /** The epoch this REGISTER fenced (a resume), if the entry existed. */
  readonly previousEpoch: number | undefined;
}

/**
 * What applying one journal entry produced. Everything in it is a function of
 * the entry and the state before it, so a replay produces the same outcome.
 */
export interface ApplyOutcome {
  readonly entry: JournalEntry;
  /**
   * The frame answering this entry's request (a REPLY or an EVICTION), exactly
   * as it must go on the wire; undefined for entries no client waits on.
   */
  readonly reply: Buffer | undefined;
  /** True when `reply` is now cached in the session's ring. */
  readonly cached: boolean;
  /** When `reply` is an EVICTION: why. The connection it goes to is unbound. */
  readonly eviction: EvictionReason | undefined;
  /** The outcome body of a COMMAND (`{"ok": …}`), also for system commands. */
  readonly result: Buffer | undefined;
  readonly registered: RegisteredSession | undefined;
  /** Sessions ended by this entry (evicted, logged out, expired), in order. */
  readonly endedSessions: readonly EndedSession[];
  /** An HTTP_REQUEST entry's response, and whether the entry changed anything; undefined for other kinds. */
  readonly http: HttpApplied | undefined;
}

const NO_ENDED: readonly EndedSession[] = Object.freeze([]);

/**
 * The outcome of `entry` with nothing to send: the base every apply step
 * fills in. `ended` is shared when empty, so quiet entries allocate no list.
 */
export function quietOutcome(entry: JournalEntry, ended: readonly EndedSession[]): ApplyOutcome {
  return {
    entry,
    reply: undefined,
    cached: false,
    eviction: undefined,
    result: undefined,
    registered: undefined,
    endedSessions: ended.length === 0 ? NO_ENDED : ended,
    http: undefined,
  };
}

/**
 * A client COMMAND's outcome: its reply, now cached, and the outcome body.
 * Built in one literal with {@link quietOutcome}'s property order (one
 * hidden class for every outcome) rather than spread from it: every
 * committed command makes one.
 */
export function cachedReplyOutcome(
  entry: JournalEntry,
  ended: readonly EndedSession[],
  reply: Buffer | undefined,
  result: Buffer | undefined,
): ApplyOutcome {
  return {
    entry,
    reply,
    cached: true,
    eviction: undefined,
    result,
    registered: undefined,
    endedSessions: ended.length === 0 ? NO_ENDED : ended,
    http: undefined,
  };
}
