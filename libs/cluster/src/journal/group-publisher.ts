import { type JetStreamClient, type JetStreamManager, JetStreamApiError } from '@nats-io/jetstream';
import { type NatsConnection } from '@nats-io/nats-core';
import { type AppendGroup } from './append-group';
import { type GroupAuthenticator } from './group-authenticator';

/** What became of one publish of a group. */
export type PublishOutcome =
  /** The stream holds the group at `seq` (`duplicate`: an earlier publish of it stored it). */
  | { readonly kind: 'stored'; readonly seq: number; readonly duplicate: boolean }
  /** The stream's end is not the message the group must follow: someone else's, or not there yet. */
  | { readonly kind: 'refused'; readonly error: Error }
  /** No answer (timeout, no stream leader, unavailable): the group may or may not be stored. */
  | { readonly kind: 'lost'; readonly error: Error }
  /** The connection is closed for good: nothing more can be published. */
  | { readonly kind: 'fatal'; readonly error: Error };

/** JetStream's `wrong last sequence` and `wrong last msg ID`. */
const WRONG_LAST_SEQUENCE = 10071;
const WRONG_LAST_MSG_ID = 10070;

/**
 * Publishes sealed groups to the journal stream and reads back who holds a
 * stream sequence: the only two things the append pipeline asks of
 * JetStream. Every publish carries the group's expectations: the stream's
 * last sequence is `seq - 1` and, when known, its last message id is the
 * previous group's. The sequence alone is not enough with several groups in
 * flight: if another writer's message took the place of one of ours, our next
 * group would expect exactly that sequence and land after it, leaving a hole
 * in our ops; expecting our own previous message id refuses it.
 */
export class GroupPublisher {
  constructor(
    private readonly connection: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly stream: string,
    private readonly subject: string,
    private readonly ackTimeoutMs: number,
    /** Signs each group as it is sealed, at the sequence it must be stored at. */
    readonly auth: GroupAuthenticator,
  ) {}

  /** One publish of `group` (sealed); never rejects. */
  async publish(group: AppendGroup): Promise<PublishOutcome> {
    const message = group.message!;
    try {
      const ack = await this.js.publish(this.subject, message.payload, {
        msgID: group.msgId,
        headers: message.headers,
        timeout: this.ackTimeoutMs,
        expect: {
          streamName: this.stream,
          lastSequence: group.seq - 1,
          ...(group.previousMsgId ? { lastMsgID: group.previousMsgId } : {}),
        },
      });
      return { kind: 'stored', seq: ack.seq, duplicate: ack.duplicate };
    } catch (cause) {
      const error = cause instanceof Error ? cause : new Error(String(cause));
      if (
        error instanceof JetStreamApiError &&
        (error.code === WRONG_LAST_SEQUENCE || error.code === WRONG_LAST_MSG_ID)
      ) {
        return { kind: 'refused', error };
      }
      if (this.connection.isClosed()) return { kind: 'fatal', error };
      return { kind: 'lost', error };
    }
  }

  /**
   * The message id of the message stored at `seq` (`''` when it has none),
   * or `null` when the stream holds nothing there yet. Asks the stream
   * leader, which holds every acknowledged message.
   */
  async msgIdAt(seq: number): Promise<string | null> {
    const stored = await this.jsm.streams.getMessage(this.stream, { seq });
    if (stored === null) return null;
    return stored.header?.get('Nats-Msg-Id') ?? '';
  }
}
