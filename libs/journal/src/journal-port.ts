import { type EntryDraft, type JournalEntry } from './journal-entry';
import { type KeyedCheckpoint, type KeyedRecordReader } from './keyed-records';
import { type SnapshotRecord } from './snapshot-codec';

/**
 * The journal as the engine sees it: the port between the apply path and
 * whatever stores the log. {@link JournalStore} (LevelDB, one node) is one
 * implementation; a replicated one (NATS JetStream) is meant to be another.
 * Only what the engine, the replay saga and the gateway's flow control use is
 * here, so a second implementation has little to honour, and each member says
 * what it must guarantee.
 *
 * The contract as a whole: ops are contiguous from 1 (or from `firstOp` once
 * compacted) and assigned in call
 * order; an entry is reported durable only once it can no longer be lost; and
 * the journal is fail-stop (after one failed write it takes nothing more, since
 * it can no longer tell which ops survived).
 */
/** How {@link Journal.enqueue} queues an entry. */
export interface EnqueueOptions {
  /** Write it together with the next entry enqueued (see {@link Journal.enqueue}). Default false. */
  readonly withNext?: boolean;
}

export interface Journal {
  /**
   * The secret this node (or cluster) signs resume tokens with. Stable for the
   * life of the data: a token minted before a restart must still verify.
   */
  readonly nodeSecret: Buffer;

  /** Highest op assigned (its entry may still be on its way to disk); 0 when empty. */
  readonly lastOp: number;

  /**
   * Lowest op {@link readBatches} can start at: 1 (or undefined) for a
   * journal that holds every op, higher once the ops below it were compacted
   * away (a snapshot then covers them). Never above {@link lastOp} on a
   * journal that has entries.
   */
  readonly firstOp?: number;

  /**
   * Entries enqueued whose durability is not yet reported; 0 once failed.
   * The gateway bounds it to stop reading sockets when the disk falls behind.
   */
  readonly pendingCount: number;

  /**
   * The largest entry body {@link enqueue} takes (a cluster's stream: what one
   * message carries). The gateway refuses a request whose body is larger
   * before admitting it. Undefined: no limit short of a frame's.
   */
  readonly entryBodyBytesMax?: number;

  /** Free-form JSON last written by {@link updateSettings}; `null` until then. */
  readonly settings: unknown;

  /** Synced writes and the entries in them since open, for the stop log line. */
  readonly writeStats: { readonly batches: number; readonly entries: number };

  /**
   * Assigns `draft` the next op (`lastOp + 1`) and a timestamp that never
   * decreases, queues it for a durable write and returns the entry at once.
   * Durability is reported only to {@link onDurable}, failure only to
   * {@link onFailure}. Throws (taking no op) for an invalid draft
   * (InvalidEntryError), a failed journal or a closed one.
   *
   * `options.withNext`: the caller enqueues another entry in the same turn,
   * and this one must share its write (a node's REPLY_CHECK ahead of the
   * request that carries it): no write starts for this entry alone. When
   * that next entry is refused, the held one is written alone. A backend
   * that groups entries over a turn anyway may ignore it.
   */
  enqueue(draft: EntryDraft, options?: EnqueueOptions): JournalEntry;

  /**
   * Calls `listener` synchronously with each batch of entries that became
   * durable, in op order, every op exactly once and none before it is durable.
   * Returns the unsubscribe function.
   */
  onDurable(listener: (entries: readonly JournalEntry[]) => void): () => void;

  /**
   * Calls `listener` once, with the error of the first failed write. Entries
   * still pending then are never reported durable. Returns the unsubscribe function.
   */
  onFailure(listener: (error: Error) => void): () => void;

  /**
   * Reads ops `fromOp`.. the end, verified and contiguous, in batches of up to
   * `batchSize` entries; what replay applies. Throws JournalCorruptionError
   * naming the first bad or missing op.
   */
  readBatches(fromOp: number, batchSize?: number): AsyncIterable<JournalEntry[]>;

  /**
   * The keyed records of module states as the newest snapshot that carried
   * them left them (read synchronously by the apply path). Undefined: the
   * journal keeps no keyed records, and keyed states live in memory only.
   */
  readonly keyed?: KeyedRecordReader;

  /**
   * Stores a snapshot of the state after applying `op` (never beyond what is
   * durable), keeping only the newest few. Resolves once it is durable.
   * `keyed`, given only when {@link keyed} is defined: the keyed records
   * changed since the previous snapshot, written atomically with it.
   */
  saveSnapshot(
    op: number,
    payload: Buffer,
    keyed?: KeyedCheckpoint,
    options?: SaveSnapshotOptions,
  ): Promise<void>;

  /** Stored snapshots, newest first; an unusable one is an error record, never a throw. */
  listSnapshots(): Promise<SnapshotRecord[]>;

  /** Replaces {@link settings} with a JSON copy of `settings`; resolves once durable. */
  updateSettings(settings: unknown): Promise<void>;

  /**
   * Takes nothing more, lets what is queued be written (or fail), then
   * releases the storage. Idempotent.
   */
  close(): Promise<void>;
}

/** How {@link Journal.saveSnapshot} treats one snapshot. */
export interface SaveSnapshotOptions {
  /**
   * Whether the journal's retention (when configured) compacts after this
   * snapshot. Default true. A checkpoint, written many times a second with
   * keyed state, passes false: retention follows the scheduled snapshots.
   */
  readonly compact?: boolean;
  /**
   * Whether the write is synced before the promise resolves. Default true. A
   * checkpoint passes false: its batch joins the journal's next synced group
   * write (LevelDB appends both to its one log, and a synced write makes every
   * earlier one durable), so it costs no fsync of its own. Lost to a power cut
   * before that, it leaves the previous checkpoint, and the journal after it.
   */
  readonly sync?: boolean;
}
