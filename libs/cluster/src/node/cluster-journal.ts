import {
  type EnqueueOptions,
  type EntryDraft,
  type Journal,
  type JournalEntry,
  type KeyedCheckpoint,
  type SaveSnapshotOptions,
  type KeyedRecordReader,
  type JournalStore,
  type SnapshotRecord,
} from '@once/journal/internal';
import { type JetStreamJournal } from '../journal';
import { NotLeaderError } from './not-leader.error';

/**
 * The journal port as a cluster node's engine sees it: the node's local
 * `JournalStore` is what the engine applies and replays, and the cluster's
 * stream is where appends go while the node leads.
 *
 * Every entry, the leader's own included, reaches the engine the same way:
 * copied into the local journal once the stream holds it (a leader copies
 * what its appends were acknowledged for, a follower what it reads), and
 * applied when the local `onDurable` reports it. So one apply path serves
 * live commits, followers and replay, and the local journal is always a
 * prefix of the stream.
 *
 * Failures of the local journal are the engine's fail-stop failures. A
 * failed append only ends the node's term (see `ClusterNode`): the stream
 * still holds the journal, and the node goes on as a follower.
 */
export class ClusterJournal implements Journal {
  #writer: JetStreamJournal | undefined;

  constructor(
    /** The node's applied copy and its snapshots. */
    readonly local: JournalStore,
    /** The cluster's stream, opened for reading; its config holds the cluster secret. */
    readonly stream: JetStreamJournal,
    private readonly nodeId: string,
  ) {}

  /** The cluster's secret: resume tokens verify on every node. */
  get nodeSecret(): Buffer {
    return this.stream.nodeSecret;
  }

  /** Highest op assigned: the writer's while leading, else the local copy's. */
  get lastOp(): number {
    return this.#writer?.lastOp ?? this.local.lastOp;
  }

  /**
   * The largest entry body the cluster's stream carries in one message: the
   * limit a request's body is held to before admission (see the journal port).
   */
  get entryBodyBytesMax(): number {
    return this.stream.entryBodyBytesMax;
  }

  /** The local copy's first op: it may be compacted like a single node's journal. */
  get firstOp(): number {
    return this.local.firstOp;
  }

  /** Entries not applied yet: appends awaiting the stream, then copies awaiting the disk. */
  get pendingCount(): number {
    return (this.#writer?.pendingCount ?? 0) + this.local.pendingCount;
  }

  get settings(): unknown {
    return (this.#writer ?? this.stream).settings;
  }

  /** The local copy's synced writes: each is a group of entries the node applied. */
  get writeStats(): { readonly batches: number; readonly entries: number } {
    return this.local.writeStats;
  }

  /** The journal this node appends through, while it leads. */
  get writer(): JetStreamJournal | undefined {
    return this.#writer;
  }

  /**
   * Starts (or, with undefined, ends) a term's appends. The writer's
   * acknowledged entries are copied into the local journal in op order,
   * which must then hold every op before the writer's first.
   */
  setWriter(writer: JetStreamJournal | undefined): void {
    this.#writer = writer;
  }

  /** The stream groups a turn's entries into one message anyway: `options` changes nothing. */
  enqueue(draft: EntryDraft, _options?: EnqueueOptions): JournalEntry {
    if (!this.#writer) throw new NotLeaderError(this.nodeId);
    return this.#writer.enqueue(draft);
  }

  onDurable(listener: (entries: readonly JournalEntry[]) => void): () => void {
    return this.local.onDurable(listener);
  }

  onFailure(listener: (error: Error) => void): () => void {
    return this.local.onFailure(listener);
  }

  readBatches(fromOp: number, batchSize?: number): AsyncIterable<JournalEntry[]> {
    return this.local.readBatches(fromOp, batchSize);
  }

  /** The node's own keyed records: every node persists the states it applies itself. */
  get keyed(): KeyedRecordReader {
    return this.local.keyed;
  }

  saveSnapshot(
    op: number,
    payload: Buffer,
    keyed?: KeyedCheckpoint,
    options?: SaveSnapshotOptions,
  ): Promise<void> {
    return this.local.saveSnapshot(op, payload, keyed, options);
  }

  listSnapshots(): Promise<SnapshotRecord[]> {
    return this.local.listSnapshots();
  }

  /** The cluster's settings record (the leader mirrors the limits in force there). */
  updateSettings(settings: unknown): Promise<void> {
    return (this.#writer ?? this.stream).updateSettings(settings);
  }

  /** Lets the writer's queued groups be acknowledged (and copied), then closes the local journal. */
  async close(): Promise<void> {
    const writer = this.#writer;
    this.#writer = undefined;
    await writer?.close();
    await this.stream.close();
    await this.local.close();
  }
}
