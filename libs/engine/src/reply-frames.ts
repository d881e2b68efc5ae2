import { type JournalEntry } from '@once/journal/internal';
import { Command, type EvictionReason, Operation, Status } from '@once/protocol';
import { encodeFrame, errorBody } from '@once/protocol/internal';

/**
 * The frames that answer a journal entry when it is applied: REPLY and
 * EVICTION, built only from the entry and the table's state at apply, so a
 * replay rebuilds them byte for byte (PROTOCOL.md, "Frames": every field of a
 * replicated reply comes from its journal entry).
 *
 * Field sources, by PROTOCOL.md header field:
 * - `client`, `session`, `request`: echoed from the entry (the request's own);
 * - `request_checksum` (offset 80): the entry's `requestChecksum`, i.e. the
 *   `checksum_body` of the request the frame answers (not on EVICTION);
 * - `op` and `timestamp`: the entry's op and journal time, on frames that
 *   answer a committed entry; 0 on refusals at apply, which commit nothing;
 * - `commit`: the entry's op (the node's highest committed op at that moment);
 * - `watermark`: a COMMAND/LOGOUT reply's own `request`, otherwise the
 *   session's highest committed request number.
 *
 * The frames the gateway answers with before anything is journaled (refusals
 * echoing the request, PING, EVICTIONs nobody asked for) are the gateway's:
 * `gateway-answers.ts` of `@once/gateway`.
 */

/** PROTOCOL.md status 6's message, at admission and at apply alike. */
export const CLIENT_OWNED_BY_OTHER_USER_MESSAGE =
  'this client id belongs to another user’s session';

/** PROTOCOL.md status 7's message. */
export const EPOCH_AHEAD_MESSAGE = 'the session epoch is newer than the table’s';

/** PROTOCOL.md status 8's message: names the number the client must resend from. */
export function requestGapMessage(nextExpected: number): string {
  return `the next request number is ${nextExpected}`;
}

/**
 * The REPLY of an applied COMMAND or LOGOUT: status OK, `op` = `commit` = the
 * entry's op, `timestamp` its journal time, `watermark` its own `request`.
 * This is the frame the session's ring caches and a retry gets again.
 */
export function replicatedReply(
  entry: JournalEntry,
  operation: Operation.Command | Operation.Logout,
  body: Uint8Array | string,
): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation,
      status: Status.Ok,
      client: entry.client,
      session: entry.session,
      request: entry.request,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
      watermark: entry.request,
    },
    body,
    // A command's reply is cached for its session's life (handed to the table as it is).
    'exact',
  );
}

/** The session a committed REGISTER opened or resumed. */
export interface RegisteredEpoch {
  /** The new epoch: the REGISTER entry's op. */
  readonly epoch: number;
  /** The session's highest committed request number (0 for a new session). */
  readonly watermark: number;
  /** The HMAC resume token of (client, epoch), minted with the node secret. */
  readonly resumeToken: Buffer;
}

/**
 * The REPLY of a committed REGISTER (PROTOCOL.md, "REGISTER"): status OK,
 * `session` = `op` = `commit` = the new epoch, `watermark` the session's,
 * body `{"userId", "epoch", "watermark", "resumeToken"}`. `request` is 0.
 */
export function registerReply(entry: JournalEntry, registered: RegisteredEpoch): Buffer {
  const { epoch, watermark } = registered;
  const body = JSON.stringify({
    userId: entry.userId,
    epoch,
    watermark,
    resumeToken: registered.resumeToken.toString('hex'),
  });
  return encodeFrame(
    {
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.Ok,
      client: entry.client,
      session: epoch,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
      watermark,
    },
    body,
  );
}

/**
 * The REPLY of a REGISTER that committed but found the client id owned by
 * another user: status CLIENT_OWNED_BY_OTHER_USER, `op` = `commit` = the
 * entry's op (it is journaled, so a retry gets the same answer), `session`
 * and `watermark` 0 (no session is disclosed).
 */
export function ownedByOtherUserReply(entry: JournalEntry): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation: Operation.Register,
      status: Status.ClientOwnedByOtherUser,
      client: entry.client,
      resumeToken: entry.requestChecksum,
      op: entry.op,
      commit: entry.op,
      timestamp: entry.timestamp,
    },
    errorBody('CLIENT_OWNED_BY_OTHER_USER', CLIENT_OWNED_BY_OTHER_USER_MESSAGE),
  );
}

/**
 * The EVICTION answering a COMMAND or LOGOUT whose session is gone or fenced
 * by the time it applies: `status` the reason (NO_SESSION, EXPIRED or
 * SESSION_TOO_LOW), `commit` the entry's op, `watermark` the session's (0
 * without one); `op` and `timestamp` 0, since the request committed nothing.
 */
export function evictionAtApply(
  entry: JournalEntry,
  operation: Operation.Command | Operation.Logout,
  reason: EvictionReason,
  watermark: number,
): Buffer {
  return encodeFrame({
    command: Command.Eviction,
    operation,
    status: reason,
    client: entry.client,
    session: entry.session,
    request: entry.request,
    commit: entry.op,
    watermark,
  });
}

/** Why a request in the journal could not apply although its session holds. */
export type ApplyRefusal = 'epoch-ahead' | 'not-next';

/**
 * The REPLY refusing a COMMAND or LOGOUT at apply: EPOCH_AHEAD, or
 * REQUEST_GAP naming the next number (watermark + 1). `commit` the entry's
 * op, `watermark` the session's; `op` and `timestamp` 0. Not cached.
 */
export function refusalAtApply(
  entry: JournalEntry,
  operation: Operation.Command | Operation.Logout,
  refusal: ApplyRefusal,
  watermark: number,
): Buffer {
  return encodeFrame(
    {
      command: Command.Reply,
      operation,
      status: refusal === 'epoch-ahead' ? Status.EpochAhead : Status.RequestGap,
      client: entry.client,
      session: entry.session,
      request: entry.request,
      resumeToken: entry.requestChecksum,
      commit: entry.op,
      watermark,
    },
    refusal === 'epoch-ahead'
      ? errorBody('EPOCH_AHEAD', EPOCH_AHEAD_MESSAGE)
      : errorBody('REQUEST_GAP', requestGapMessage(watermark + 1)),
  );
}
