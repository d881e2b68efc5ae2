import { type JetStreamManager } from '@nats-io/jetstream';
import {
  type EntryDraft,
  type Journal,
  type JournalEntry,
  assertValidDraft,
  nextTimestamp,
  stampEntry,
} from '@once/journal/internal';
import { InvalidEntryError, JournalClosedError } from '@once/journal';
import { type ClusterNames } from '../cluster-names';
import { type AppendPipeline } from './append-pipeline';
import { type ClusterConfig } from './cluster-config';
import { type LeaseHolder } from '../lease/lease-value';
import { type EntryCapacity, type JetStreamJournalOptions } from './jetstream-journal-options';
import { type JetStreamJournalParts, openJetStreamJournalParts } from './jetstream-journal-parts';
import { readJournalStreamLastOp } from './journal-stream';
import { type StoredEntries } from './journal-message';
import { type StreamReader } from './stream-reader';

const DEFAULT_READ_BATCH_SIZE = 1024;

/** The journal port without snapshots, which stay with each node (see `ClusterJournal`). */
export type StreamJournalPort = Omit<Journal, 'saveSnapshot' | 'listSnapshots'>;

/**
 * The journal of a cluster: one replicated JetStream stream, one message per
 * group of contiguous entries (see `encodeGroupMessage`), the cluster's
 * secret and settings in a KV bucket. It holds no snapshots: each node keeps
 * its own, of its own applied state, in its local journal, so this is the
 * journal port less `saveSnapshot` and `listSnapshots` ({@link StreamJournalPort}).
 *
 * An instance opened by the node holding the cluster's lease is the writer:
 * it continues after the last message it found at open, and every publish
 * names the message it must follow, so once another writer has appended, its
 * next publish is refused and it fails stop with `JournalFencedError`
 * (`JOURNAL_FENCED`). A new term needs a new instance, opened once the node
 * holds the lease. Any instance reads: `readBatches` for replay, `follow` for
 * a follower's tail, `streamLastOp` for a read barrier.
 */
export class JetStreamJournal implements StreamJournalPort {
  /** The cluster's secret (resume tokens), the same on every node. */
  readonly nodeSecret: Buffer;
  readonly names: ClusterNames;

  readonly #pipeline: AppendPipeline;
  readonly #reader: StreamReader;
  readonly #jsm: JetStreamManager;
  readonly #config: ClusterConfig;
  readonly #clock: () => bigint;
  readonly #capacity: EntryCapacity;
  /** Writes other than appends (settings) that close awaits. */
  readonly #otherWrites = new Set<Promise<unknown>>();
  /** Reads following the stream, stopped by close. */
  readonly #follows = new Set<AbortController>();
  #lastOp: number;
  #lastTimestamp: bigint;
  /** Highest op seen in the stream by a read (durable by definition). */
  #readOp = 0;
  #closing: Promise<void> | undefined;

  private constructor(parts: JetStreamJournalParts) {
    this.names = parts.names;
    this.nodeSecret = parts.config.secret;
    this.#jsm = parts.jsm;
    this.#reader = parts.reader;
    this.#pipeline = parts.pipeline;
    this.#config = parts.config;
    this.#clock = parts.clock;
    this.#capacity = parts.capacity;
    this.#lastOp = parts.lastOp;
    this.#lastTimestamp = parts.lastTimestamp;
  }

  /**
   * Opens the journal of `options.clusterName`, creating its stream and
   * config bucket where missing (see `openJetStreamJournalParts`). Throws
   * `JournalStreamMismatchError` for a stream not configured to hold a
   * journal, `JournalCorruptionError` for a last message that does not verify.
   */
  static async open(options: JetStreamJournalOptions): Promise<JetStreamJournal> {
    return new JetStreamJournal(await openJetStreamJournalParts(options));
  }

  /**
   * The largest entry body one message carries: the servers' `max_payload`
   * less the message's headers and the entry's own (see `entryCapacity`).
   * `enqueue` refuses a larger one.
   */
  get entryBodyBytesMax(): number {
    return this.#capacity.bodyBytesMax;
  }

  /** Highest op assigned by this writer, or the stream's last op at open. */
  get lastOp(): number {
    return this.#lastOp;
  }

  /** Highest op known to be in the stream: acknowledged, found at open, or read. */
  get durableOp(): number {
    return Math.max(this.#pipeline.durableOp, this.#readOp);
  }

  /** Entries enqueued and not yet acknowledged; 0 once failed. */
  get pendingCount(): number {
    return this.#pipeline.pendingCount;
  }

  /** Acknowledged messages and the entries in them, since open. */
  get writeStats(): { readonly batches: number; readonly entries: number } {
    return this.#pipeline.writeStats;
  }

  /** Groups republished after a lost answer, and how many the stream already held. */
  get appendStats(): {
    readonly groupsRepublished: number;
    readonly republishes: number;
    readonly duplicates: number;
  } {
    return this.#pipeline.appendStats;
  }

  /** Messages published and not yet acknowledged (at most `groupsInFlightMax`). */
  get groupsInFlight(): number {
    return this.#pipeline.groupsInFlight;
  }

  /**
   * The highest leader term the cluster recorded: what a new leadership
   * counts on from when the lease key expired with the whole cluster.
   */
  recordedTerm(): Promise<number> {
    return this.#config.recordedTerm();
  }

  /** Records `holder`'s term as the cluster's highest, unless a higher one is recorded. */
  recordTerm(holder: LeaseHolder): Promise<void> {
    return this.#config.recordTerm(holder);
  }

  /** The cluster's settings record as this node last read or wrote it. */
  get settings(): unknown {
    return this.#config.settings;
  }

  /** The error the journal stopped with (`JournalFencedError`, `JournalFailedError`). */
  get failed(): Error | undefined {
    return this.#pipeline.failure;
  }

  /**
   * Assigns the next op and a timestamp never below the last one, queues the
   * entry for the next message and returns it. Throws `InvalidEntryError` for
   * a bad draft or one too large for a message, the failure once failed,
   * `JournalClosedError` once closing; taking no op in each case.
   */
  enqueue(draft: EntryDraft): JournalEntry {
    assertValidDraft(draft);
    const op = this.#lastOp + 1;
    const timestamp = nextTimestamp(this.#clock(), this.#lastTimestamp);
    const { entry, encoded } = stampEntry(draft, op, timestamp);
    const { entryBytesMax } = this.#capacity;
    if (encoded.byteLength > entryBytesMax) {
      throw new InvalidEntryError(
        'body',
        `makes an entry of ${encoded.byteLength} bytes, more than the ${entryBytesMax} a journal message carries (the server's max_payload less headers)`,
      );
    }
    this.#assertWritable('append');
    this.#lastOp = op;
    this.#lastTimestamp = timestamp;
    this.#pipeline.add(entry, encoded);
    return entry;
  }

  onDurable(listener: (entries: readonly JournalEntry[]) => void): () => void {
    return this.#pipeline.onDurable(listener);
  }

  /**
   * Like `onDurable`, with each entry's encoding as the stream stored it: a
   * node copying its own appends into its local journal stores these bytes
   * instead of encoding every entry again.
   */
  onStored(
    listener: (entries: readonly JournalEntry[], encoded: readonly Buffer[]) => void,
  ): () => void {
    return this.#pipeline.onStored(listener);
  }

  onFailure(listener: (error: Error) => void): () => void {
    return this.#pipeline.onFailure(listener);
  }

  /**
   * Reads ops `fromOp`.. the stream's end as it is when the read starts, in
   * batches of up to `batchSize`, verified and contiguous. Throws
   * `JournalCorruptionError` naming the first bad or missing op, including
   * when the stream ends before an op this instance knows to be durable.
   * An aborted `signal` ends the read and throws its reason.
   */
  readBatches(
    fromOp: number,
    batchSize: number = DEFAULT_READ_BATCH_SIZE,
    options: { signal?: AbortSignal } = {},
  ): AsyncIterable<JournalEntry[]> {
    assertPositiveInteger('fromOp', fromOp);
    assertPositiveInteger('batchSize', batchSize);
    this.#assertOpen('read the journal');
    return this.#reader.readBatches(
      fromOp,
      batchSize,
      this.durableOp,
      (op) => {
        this.#readOp = Math.max(this.#readOp, op);
      },
      options.signal,
    );
  }

  /**
   * A follower's tail: yields the entries of ops `fromOp` and on with the
   * bytes the stream stored them as, once per message, as they are appended,
   * verified and contiguous, until the loop breaks, `signal` aborts or the
   * journal closes. Throws `JournalCorruptionError` like `readBatches`.
   */
  follow(fromOp: number, options: { signal?: AbortSignal } = {}): AsyncIterable<StoredEntries> {
    assertPositiveInteger('fromOp', fromOp);
    this.#assertOpen('follow the journal');
    const stop = new AbortController();
    this.#follows.add(stop);
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    return this.#follow(fromOp, signal, stop);
  }

  async *#follow(
    fromOp: number,
    signal: AbortSignal,
    stop: AbortController,
  ): AsyncGenerator<StoredEntries> {
    try {
      for await (const stored of this.#reader.read(fromOp, { signal })) {
        this.#readOp = Math.max(this.#readOp, stored.entries[stored.entries.length - 1].op);
        yield stored;
      }
    } finally {
      this.#follows.delete(stop);
    }
  }

  /**
   * The stream's last op now, asked of the stream leader: a follower that has
   * applied up to it has seen every write acknowledged before the call.
   */
  streamLastOp(): Promise<number> {
    this.#assertOpen('read the journal end');
    return readJournalStreamLastOp(this.#jsm, this.names);
  }

  /** Replaces the cluster's settings record; resolves once the bucket stored it. */
  async updateSettings(settings: unknown): Promise<void> {
    if (JSON.stringify(settings) === undefined) {
      throw new TypeError('settings must be JSON-serializable');
    }
    this.#assertWritable('update settings');
    await this.#track(this.#config.putSettings(settings));
  }

  /**
   * Takes nothing more, waits for the queued groups to be acknowledged (or
   * fail) and for settings writes, stops the follows. The NATS
   * connection stays open. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await this.#pipeline.whenIdle();
    for (const follow of this.#follows) follow.abort();
    await Promise.allSettled([...this.#otherWrites]);
  }

  async #track<T>(write: Promise<T>): Promise<T> {
    this.#otherWrites.add(write);
    try {
      return await write;
    } finally {
      this.#otherWrites.delete(write);
    }
  }

  #assertOpen(operation: string): void {
    if (this.#closing !== undefined) {
      throw new JournalClosedError(`stream ${this.names.stream}`, operation);
    }
  }

  #assertWritable(operation: string): void {
    const failure = this.#pipeline.failure;
    if (failure !== undefined) throw failure;
    this.#assertOpen(operation);
  }
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be an integer >= 1: ${value}`);
  }
}
