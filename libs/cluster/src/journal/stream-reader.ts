import {
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { type JournalEntry } from '@once/journal/internal';
import { JournalCorruptionError } from '@once/journal';
import { type ClusterNames } from '../cluster-names';
import { type GroupAuthenticator } from './group-authenticator';
import { type StoredEntries, decodeGroupMessage, messageOps } from './journal-message';
import { retryTransient } from './transient-retry';

/** Messages the ordered consumer asks for at a time. */
const PULL_MESSAGES = 64;

/** What {@link StreamReader.read} reads. */
export interface StreamReadOptions {
  /** Stop after this stream sequence (the end when the read started); unset: follow forever. */
  readonly endSeq?: number;
  /** Stops a read that follows the stream (the iteration then simply ends). */
  readonly signal?: AbortSignal;
}

/**
 * Reads journal entries out of the stream, verified and contiguous.
 *
 * Bulk reads go through an ordered consumer: the server pushes messages in
 * sequence order with flow control, the client recreates the consumer where
 * it left off if a message is missed or its server dies, and the same read
 * simply goes on waiting at the end of the stream, which is what a follower's
 * tail is. Finding where an op is uses point reads from the stream leader
 * (a binary search on the messages' op headers), since a sequence is not an
 * op. Direct gets would spread those over replicas, but a replica may lag,
 * and they are few. Requests that meet no leader (an election) are retried
 * for `leaderWaitMs` as the read starts; once reading, the ordered consumer
 * rides out elections on its own.
 */
export class StreamReader {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: ClusterNames,
    private readonly leaderWaitMs: number,
    /** Verifies every message read before a byte of it is decoded. */
    private readonly auth: GroupAuthenticator,
  ) {}

  /** The stream's last sequence now (0 when empty). */
  async lastSeq(): Promise<number> {
    const info = await retryTransient(
      () => this.jsm.streams.info(this.names.stream),
      this.leaderWaitMs,
    );
    return info.state.last_seq;
  }

  /**
   * The sequence of the message holding `op`, searching sequences 1..`lastSeq`;
   * `lastSeq + 1` when `op` is beyond the last message (where it will be).
   */
  async locate(op: number, lastSeq: number): Promise<number> {
    if (lastSeq === 0 || op === 1) return 1;
    const last = await this.opsAt(lastSeq, op);
    if (op > last.lastOp) return lastSeq + 1;
    if (op >= last.firstOp) return lastSeq;
    // The greatest sequence whose first op is at most `op`, in [low, high].
    let low = 1;
    let high = lastSeq - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((await this.opsAt(middle, op)).firstOp <= op) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /**
   * Yields the entries of ops `fromOp` and on with their stored bytes, once
   * per stored message (its entries below `fromOp` left out), each message
   * verified and following the previous one. Throws
   * {@link JournalCorruptionError} naming the first bad or missing op.
   */
  async *read(fromOp: number, options: StreamReadOptions = {}): AsyncGenerator<StoredEntries> {
    const { endSeq, signal } = options;
    const startSeq = await this.locate(fromOp, endSeq ?? (await this.lastSeq()));
    if ((endSeq !== undefined && startSeq > endSeq) || signal?.aborted) return;
    const messages: ConsumerMessages = await retryTransient(async () => {
      const consumer = await this.js.consumers.get(this.names.stream, {
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: startSeq,
        filter_subjects: this.names.subject,
      });
      return consumer.consume({ max_messages: PULL_MESSAGES });
    }, this.leaderWaitMs);
    const stop = () => messages.stop();
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
    try {
      let nextOp: number | undefined;
      for await (const message of messages) {
        const stored = decodeGroupMessage(
          message.seq,
          message.data,
          message.headers,
          this.auth,
          nextOp,
        );
        const { entries, encoded } = stored;
        if (nextOp === undefined && entries[0].op > fromOp) {
          throw new JournalCorruptionError(
            fromOp,
            `it is missing (stream message ${message.seq} starts at op ${entries[0].op})`,
          );
        }
        nextOp = entries[entries.length - 1].op + 1;
        const skip = Math.max(0, fromOp - entries[0].op);
        if (skip === 0) yield stored;
        else if (skip < entries.length) {
          yield { entries: entries.slice(skip), encoded: encoded.slice(skip) };
        }
        if (endSeq !== undefined && message.seq >= endSeq) break;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      stop();
    }
  }

  /**
   * Reads ops `fromOp`.. the stream's end as it is when the read starts, in
   * batches of up to `batchSize`; `onRead` hears the last op of each message
   * read. Throws {@link JournalCorruptionError} like {@link read}, and also
   * when the stream ends before `durableOp`, which the caller knows is stored.
   */
  async *readBatches(
    fromOp: number,
    batchSize: number,
    durableOp: number,
    onRead: (op: number) => void,
    signal?: AbortSignal,
  ): AsyncGenerator<JournalEntry[]> {
    const endSeq = await this.lastSeq();
    let nextOp = fromOp;
    let batch: JournalEntry[] = [];
    for await (const { entries } of this.read(fromOp, { endSeq, signal })) {
      for (const entry of entries) {
        batch.push(entry);
        if (batch.length === batchSize) {
          yield batch;
          batch = [];
        }
      }
      nextOp = entries[entries.length - 1].op + 1;
      onRead(nextOp - 1);
    }
    // An abandoned read ended early: say so, rather than call the stream short.
    signal?.throwIfAborted();
    if (batch.length > 0) yield batch;
    if (nextOp <= durableOp) {
      throw new JournalCorruptionError(
        nextOp,
        `it is missing (stream ${this.names.stream} ends at op ${nextOp - 1}, op ${durableOp} was durable)`,
      );
    }
  }

  /** The ops of message `seq`; a missing one is a gap at `opHint`. */
  private async opsAt(seq: number, opHint: number): Promise<{ firstOp: number; lastOp: number }> {
    const stored = await retryTransient(
      () => this.jsm.streams.getMessage(this.names.stream, { seq }),
      this.leaderWaitMs,
    );
    if (stored === null) {
      throw new JournalCorruptionError(opHint, `stream message ${seq} is missing`);
    }
    return messageOps(seq, stored.header, opHint);
  }
}
