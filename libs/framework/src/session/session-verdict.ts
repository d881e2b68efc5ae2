import { type ClientId, EvictionReason } from '@once/protocol';
import { type SessionBinding } from './session-binding';

/** What the session rules look at: the request's header, the connection, the table. */
export interface SessionFacts {
  /** The header's `client`, `session` and `request`. */
  readonly client: ClientId;
  readonly session: number;
  readonly request: number;
  /** The session the connection holds, if any. */
  readonly binding: SessionBinding | undefined;
  /** The client table's entry for `client`, as of the last applied op. */
  readonly entry:
    { readonly epoch: number; readonly watermark: number; readonly userId: number } | undefined;
  /** Constant-time check of the header's resume token for (`client`, `session`); called only when needed. */
  readonly tokenValid: () => boolean;
  /** Why a client without an entry is gone: EXPIRED if the node remembers it expired, else NO_SESSION. */
  readonly goneReason: () => EvictionReason;
}

/** The resume lookup's answer (implicit rebind, PROTOCOL.md). */
export type ResumeVerdict =
  /** The connection holds a session: the fence decides the rest. */
  | { readonly kind: 'bound' }
  /** Unbound, with a valid token for the table's epoch: bind it (superseding any holder). */
  | { readonly kind: 'resume'; readonly binding: SessionBinding }
  /** Unbound, with a valid token for an epoch that is not the table's: the fence answers. */
  | { readonly kind: 'unbound-token' }
  /** No session and no valid token: NOT_BOUND (says nothing about other sessions). */
  | { readonly kind: 'not-bound' };

/** The epoch fence's answer. */
export type FenceVerdict =
  | { readonly kind: 'pass' }
  /** The header's client is not the one the connection is bound to: INVALID_REQUEST. */
  | { readonly kind: 'invalid-request'; readonly detail: string }
  /** The session is gone or fenced: EVICTION with `reason`, and the connection is unbound. */
  | { readonly kind: 'evicted'; readonly reason: EvictionReason; readonly watermark: number }
  /** The header names an epoch newer than the table's: REPLY EPOCH_AHEAD. */
  | { readonly kind: 'epoch-ahead'; readonly watermark: number };

const BOUND: ResumeVerdict = Object.freeze({ kind: 'bound' });
const NOT_BOUND: ResumeVerdict = Object.freeze({ kind: 'not-bound' });
const UNBOUND_TOKEN: ResumeVerdict = Object.freeze({ kind: 'unbound-token' });
const PASS: FenceVerdict = Object.freeze({ kind: 'pass' });

export const CLIENT_NOT_BOUND_DETAIL =
  'the header’s client is not the one this connection is bound to';

/**
 * The resume lookup. A bound connection needs none. An unbound one must
 * present a non-zero session and request and a token the node minted for
 * exactly (client, session); with a token for the table's current epoch it
 * is bound as the session's holder.
 */
export function resumeVerdict(facts: SessionFacts): ResumeVerdict {
  if (facts.binding) return BOUND;
  if (facts.session === 0 || facts.request === 0 || !facts.tokenValid()) return NOT_BOUND;
  const { entry } = facts;
  if (entry && entry.epoch === facts.session) {
    return {
      kind: 'resume',
      binding: { client: facts.client, epoch: entry.epoch, userId: entry.userId },
    };
  }
  return UNBOUND_TOKEN;
}

/**
 * The epoch fence, PROTOCOL.md's first rows of the COMMAND table, against
 * the table as it stands (`binding` is the connection's after the resume
 * lookup):
 * - no entry: EVICTION NO_SESSION (EXPIRED when it expired);
 * - the header's epoch, or the one the connection was bound under, below the
 *   entry's: EVICTION SESSION_TOO_LOW (a newer REGISTER fenced it);
 * - the header's epoch above the entry's: EPOCH_AHEAD.
 */
export function fenceVerdict(facts: SessionFacts): FenceVerdict {
  const { binding, entry, session } = facts;
  if (binding && binding.client !== facts.client) {
    return { kind: 'invalid-request', detail: CLIENT_NOT_BOUND_DETAIL };
  }
  if (!entry) return { kind: 'evicted', reason: facts.goneReason(), watermark: 0 };
  if (session < entry.epoch || (binding !== undefined && binding.epoch < entry.epoch)) {
    return { kind: 'evicted', reason: EvictionReason.SessionTooLow, watermark: entry.watermark };
  }
  if (session > entry.epoch) return { kind: 'epoch-ahead', watermark: entry.watermark };
  return PASS;
}
