import { ClassicLevel, type IteratorOptions } from 'classic-level';
import { DataDirectoryInUseError } from './data-directory-in-use.error';
import {
  type DataDirectoryPaths,
  dataDirectoryPaths,
  neverCompletedManifest,
  prepareDataDirectory,
} from './data-directory';
import { DataDirectoryIncompleteError } from './data-directory-incomplete.error';
import { DataDirectoryUnreadableError } from './data-directory-unreadable.error';
import { decodeEntry } from './entry-codec';
import { assertValidDraft } from './entry-validator';
import { GroupCommit } from './group-commit';
import { InvalidEntryError } from './invalid-entry.error';
import { JournalBusyError } from './journal-busy.error';
import { JournalCompactedError } from './journal-compacted.error';
import { JournalClosedError } from './journal-closed.error';
import { JournalCorruptionError } from './journal-corruption.error';
import { type EntryDraft, type JournalEntry } from './journal-entry';
import { type EnqueueOptions, type Journal, type SaveSnapshotOptions } from './journal-port';
import { olderFormatOf, upgradeFromFormat1, upgradeFromFormat2 } from './format-upgrade';
import { FormatUpgradeNeededError } from './format-upgrade-needed.error';
import { type KeyedCheckpoint, type KeyedRecordReader, KeyedRecords } from './keyed-records';
import {
  type JournalLevel,
  type Level,
  levelLayout,
  type MetaLevel,
  metaSublevel,
  type SnapshotLevel,
} from './leveldb-layout';
import {
  type CompactionResult,
  type CompactionTarget,
  deleteBelow,
  readFirstOp,
  recordFirstOp,
  retentionStart,
} from './journal-retention';
import {
  FORMAT_VERSION,
  META_KEY,
  newNodeMeta,
  type NodeMeta,
  parseNodeMeta,
  secretFingerprint,
  serializeNodeMeta,
} from './node-meta';
import { NodeMetaCorruptionError } from './node-meta-corruption.error';
import { createNodeSecret, readNodeSecret } from './node-secret';
import { NodeSecretMismatchError } from './node-secret-mismatch.error';
import { OP_KEY_BYTES, decodeOpKey, encodeOpKey, writeOpKey } from './op-key';
import { type SnapshotRecord } from './snapshot-codec';
import { SnapshotStore } from './snapshot-store';
import { nextTimestamp, stampEntry } from './stamped-entry';
import { wallClockNs } from './wall-clock';

/** Options of {@link JournalStore.open}. */
export interface JournalStoreOptions {
  /**
   * Whether `open` upgrades a directory of an older format in place (see
   * `format-upgrade.ts`). False for reads that promise to write nothing
   * (verification, the CLI's reads): a format-2 directory is then read as it
   * is (format 3 only adds what later writes put there; its meta record
   * keeps saying 2, so such a store must only be read), and a format-1
   * directory, whose keys would have to move, is refused with
   * {@link FormatUpgradeNeededError}. Default true.
   */
  upgradeFormat?: boolean;
  /**
   * Now, in ns since the Unix epoch. Default: `Date.now()` for the ms,
   * `process.hrtime` below. Timestamps are clamped so they never decrease,
   * whatever this returns.
   */
  clock?: () => bigint;
  /**
   * Fault injection: called before each group's batch write with its entry
   * count. A throw or rejection is handled exactly like a LevelDB write
   * failure (the store fails stop).
   */
  beforeWrite?: (entryCount: number) => void | Promise<void>;
  /**
   * How many snapshots `saveSnapshot` keeps (newest by op). Default 2, and
   * never fewer than `retainSnapshots`.
   */
  snapshotsKept?: number;
  /**
   * Retention: keep the journal's history from the oldest of the newest
   * this many readable snapshots on, and delete the entries below it in the
   * background after each snapshot (see {@link JournalStore.compact}).
   * Default 0: keep every entry, so a replay from op 1 stays possible.
   */
  retainSnapshots?: number;
  /** Keys per synced delete batch of a compaction. Default 10000. */
  compactBatchKeys?: number;
  /**
   * Fault injection: called before each compaction delete batch with its key
   * count. A throw or rejection interrupts the compaction there, as a crash
   * would (the store itself stays healthy).
   */
  beforeCompactBatch?: (keyCount: number) => void | Promise<void>;
  /** Told of each background compaction that deleted entries, with how long it took. */
  onCompaction?: (result: CompactionResult & { readonly elapsedMs: number }) => void;
  /**
   * Told what the store did on its own that an operator should hear of (a
   * leftover of a cut-short directory creation removed, a background
   * compaction that failed). Default: ignored.
   */
  notice?: (message: string) => void;
  /**
   * Whether each group's batch is fsynced before it is reported durable.
   * Default true: on a single node the journal is the authority, and an
   * entry is durable only once it is on disk. A cluster node's local copy
   * turns it off, because the cluster's stream is the authority there: a
   * copied tail lost to a power cut is copied again from the stream, and
   * waiting for a local fsync per group would cap the leader's commit rate
   * at the disk's fsync rate. A synced write (a snapshot, settings) still
   * makes every earlier write durable, since LevelDB syncs its one log.
   */
  syncWrites?: boolean;
  /**
   * LevelDB's write buffer (its memtable), in bytes. Default 32 MiB
   * ({@link DEFAULT_LEVELDB_WRITE_BUFFER_BYTES}), against LevelDB's own 4 MiB.
   * Why larger: with keyed state, checkpoints rewrite records spread over
   * the whole key space many times a second; each memtable flush becomes a
   * level-0 table that overlaps every record table below it, so small
   * flushes meant compacting the records over and over. Measured on the
   * ledger's module-state bench, 32 MiB cut LevelDB's flushed and compacted
   * bytes per request by 3 to 12 times. Costs that much memory, and a
   * restart after a crash replays up to that much of LevelDB's own log.
   */
  leveldbWriteBufferBytes?: number;
  /**
   * LevelDB's block cache, in bytes. Default 64 MiB
   * ({@link DEFAULT_LEVELDB_CACHE_BYTES}), against LevelDB's own 8 MiB: the
   * keyed records a handler reads past the keyed cache (`getSync`) come from
   * it before the OS page cache.
   */
  leveldbCacheBytes?: number;
}

/** Default of {@link JournalStoreOptions.leveldbWriteBufferBytes}. */
export const DEFAULT_LEVELDB_WRITE_BUFFER_BYTES = 32 * 1024 * 1024;
/** Default of {@link JournalStoreOptions.leveldbCacheBytes}. */
export const DEFAULT_LEVELDB_CACHE_BYTES = 64 * 1024 * 1024;

/** Told of one group's batch write: its entries and the write's duration in ms. */
export type BatchWrittenListener = (entryCount: number, writeMs: number) => void;

/**
 * One journal put as LevelDB's batch takes it: the key already carries the
 * journal sublevel's prefix, the value is the encoded entry.
 */
interface JournalPut {
  readonly type: 'put';
  readonly key: Buffer;
  readonly value: Buffer;
}

/**
 * The implementation half of abstract-level's chained batch, which
 * classic-level implements natively. The public `batch()` spends several
 * microseconds per operation in JavaScript (copying options into each
 * operation, resolving encodings, prefixing sublevel keys, hooks, events):
 * at tens of thousands of appends per second that alone costs a core.
 * Journal puts are already encoded buffers under keys prefixed once, and the
 * store uses no hooks or write events, so its group writes go straight to
 * the implementation: each put is one native call with the key and the
 * value, where `_batch` of an array read each operation's `type`, `key` and
 * `value` back as properties through N-API, about half a microsecond more
 * per entry on the main thread. LevelDB gets the same WriteBatch: the same
 * puts in the same order, written once, synced as asked.
 */
interface NativeChainedBatch {
  _put(key: Buffer, value: Buffer): void;
  _write(options: { sync: boolean }): Promise<void>;
  /** Public: detaches the batch from its database (what `write()` does after `_write`). */
  close(): Promise<void>;
}

interface NativeBatchSource {
  _chainedBatch(): NativeChainedBatch;
}

/** Writes one group's puts as one LevelDB batch (see {@link NativeChainedBatch}). */
async function writeBatch(
  db: NativeBatchSource,
  operations: readonly JournalPut[],
  sync: boolean,
): Promise<void> {
  const batch = db._chainedBatch();
  try {
    for (let i = 0; i < operations.length; i++) {
      const { key, value } = operations[i];
      batch._put(key, value);
    }
    await batch._write({ sync });
  } finally {
    await batch.close();
  }
}

/** Where the journal ends, as found on disk. */
interface JournalTail {
  readonly lastOp: number;
  readonly lastTimestamp: bigint;
}

const DEFAULT_READ_BATCH_SIZE = 1024;
/**
 * How many bytes of entries one journal read may fetch: LevelDB's iterator
 * stops a `nextv` there (its default is 16 KiB, about 100 entries of a
 * small command), so that a batch is `batchSize` entries unless they are
 * large. Each native read has a fixed cost on the main thread, and replay
 * reads the whole journal this way.
 */
const READ_BATCH_BYTES = 1024 * 1024;
const DEFAULT_SNAPSHOTS_KEPT = 2;
const DEFAULT_COMPACT_BATCH_KEYS = 10_000;
/** Snapshots `compact()` keeps the history of when neither it nor the store is told: one to fall back on. */
const DEFAULT_COMPACT_RETAIN = 2;
/** Keys deleted per synced batch by `truncateFrom`. */
const TRUNCATE_CHUNK_SIZE = 1024;

/**
 * The journal: the node's single source of truth, an append-only sequence of
 * checksummed entries with ops 1, 2, 3, … in LevelDB, plus the snapshots and
 * the meta record of the same data directory.
 *
 * Appends are group-committed (see {@link GroupCommit}): one synced batch per
 * group, so an append resolves only once its entry is on disk. The store fails
 * stop: after one failed write it accepts nothing until it is reopened, since
 * it can no longer tell which ops reached the disk.
 *
 * Data directory layout: `leveldb/` (sublevels `.meta`, `.snapshot`, `journal`:
 * see {@link SUBLEVEL_NAMES} for why in that order)
 * and `node-secret` (32 random bytes, mode 0600).
 *
 * It is the single-node implementation of the {@link Journal} port; what it
 * offers beyond the port (`append`, `durableOp`, `truncateFrom`, `meta`) is
 * for operators' tools and tests.
 */
export class JournalStore implements Journal {
  /** Absolute path of the data directory. */
  readonly dir: string;
  /** 32 random bytes created with the data directory (the resume-token HMAC key). */
  readonly nodeSecret: Buffer;

  /** Writes other than appends (truncation, snapshot, settings) that close must await. */
  readonly #otherWrites = new Set<Promise<unknown>>();
  readonly #db: Level;
  readonly #journal: JournalLevel;
  /** The journal sublevel's key prefix in the root database. */
  readonly #journalKeyPrefix: Buffer;
  readonly #metaLevel: MetaLevel;
  readonly #snapshots: SnapshotStore;
  readonly #keyed: KeyedRecords;
  readonly #commit: GroupCommit<JournalPut>;
  readonly #clock: () => bigint;
  #meta: NodeMeta;
  /** Highest op assigned; the next append gets `#lastOp + 1`. */
  #lastOp: number;
  #lastTimestamp: bigint;
  /** Set while `truncateFrom` moves the journal's end; appends are refused. */
  #truncating = false;
  /** Lowest op readable: ops below it were compacted away (1: none were). */
  #firstOp: number;
  /** The running compaction, if any; `#compactAgain` asks for another once it ends. */
  #compaction: Promise<CompactionResult> | undefined;
  #compactAgain = false;
  readonly #retainSnapshots: number;
  readonly #compactBatchKeys: number;
  readonly #options: JournalStoreOptions;
  #closing: Promise<void> | undefined;
  /** Listeners of {@link onBatchWritten}; copy-on-write, read once per batch. */
  #batchListeners: readonly BatchWrittenListener[] = [];

  private constructor(init: {
    paths: DataDirectoryPaths;
    db: Level;
    journal: JournalLevel;
    metaLevel: MetaLevel;
    snapshotLevel: SnapshotLevel;
    keyed: KeyedRecords;
    nodeSecret: Buffer;
    meta: NodeMeta;
    tail: JournalTail;
    firstOp: number;
    options: JournalStoreOptions;
    snapshotsKept: number;
  }) {
    this.dir = init.paths.dir;
    this.nodeSecret = init.nodeSecret;
    this.#db = init.db;
    this.#journal = init.journal;
    this.#metaLevel = init.metaLevel;
    this.#snapshots = new SnapshotStore(init.db, init.snapshotLevel, init.snapshotsKept);
    this.#keyed = init.keyed;
    this.#meta = init.meta;
    this.#lastOp = init.tail.lastOp;
    this.#lastTimestamp = init.tail.lastTimestamp;
    this.#firstOp = init.firstOp;
    this.#options = init.options;
    this.#retainSnapshots = init.options.retainSnapshots ?? 0;
    this.#compactBatchKeys = init.options.compactBatchKeys ?? DEFAULT_COMPACT_BATCH_KEYS;
    this.#clock = init.options.clock ?? wallClockNs;
    this.#journalKeyPrefix = Buffer.from(init.journal.prefixKey(Buffer.alloc(0), 'buffer', false));
    const native = init.db as unknown as NativeBatchSource;
    const beforeWrite = init.options.beforeWrite;
    const sync = init.options.syncWrites ?? true;
    this.#commit = new GroupCommit<JournalPut>(async (operations) => {
      if (beforeWrite !== undefined) await beforeWrite(operations.length);
      const listeners = this.#batchListeners;
      if (listeners.length === 0) {
        await writeBatch(native, operations, sync);
        return;
      }
      const startedMs = performance.now();
      await writeBatch(native, operations, sync);
      const writeMs = performance.now() - startedMs;
      // A throwing listener must not pass for a failed write (that would stop the store).
      for (const listener of listeners) {
        try {
          listener(operations.length, writeMs);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }, init.tail.lastOp);
  }

  /**
   * Opens (creating if missing) the data directory `dir`.
   *
   * Fails with {@link DataDirectoryInUseError} when another store holds it,
   * {@link NodeSecretMismatchError} when the node secret is missing or not the
   * one the directory was created with, {@link UnsupportedFormatError} for a
   * directory of another format version and {@link NodeMetaCorruptionError}
   * for an unreadable meta record.
   */
  static async open(dir: string, options: JournalStoreOptions = {}): Promise<JournalStore> {
    const retainSnapshots = options.retainSnapshots ?? 0;
    if (!Number.isSafeInteger(retainSnapshots) || retainSnapshots < 0) {
      throw new RangeError(`retainSnapshots must be an integer >= 0: ${retainSnapshots}`);
    }
    const batchKeys = options.compactBatchKeys ?? DEFAULT_COMPACT_BATCH_KEYS;
    if (!Number.isSafeInteger(batchKeys) || batchKeys < 1) {
      throw new RangeError(`compactBatchKeys must be an integer >= 1: ${batchKeys}`);
    }
    const snapshotsKept = Math.max(
      options.snapshotsKept ?? DEFAULT_SNAPSHOTS_KEPT,
      retainSnapshots,
    );
    if (!Number.isSafeInteger(snapshotsKept) || snapshotsKept < 1) {
      throw new RangeError(`snapshotsKept must be an integer >= 1: ${snapshotsKept}`);
    }
    for (const [name, bytes] of [
      ['leveldbWriteBufferBytes', options.leveldbWriteBufferBytes],
      ['leveldbCacheBytes', options.leveldbCacheBytes],
    ] as const) {
      if (bytes !== undefined && (!Number.isSafeInteger(bytes) || bytes < 65_536)) {
        throw new RangeError(`${name} must be an integer >= 65536: ${bytes}`);
      }
    }
    const clock = options.clock ?? wallClockNs;
    const paths = dataDirectoryPaths(dir);
    await prepareDataDirectory(paths, initializeLevelDb, options.notice ?? (() => undefined));
    const db: Level = new ClassicLevel<Buffer, Buffer>(paths.leveldb, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
      writeBufferSize: options.leveldbWriteBufferBytes ?? DEFAULT_LEVELDB_WRITE_BUFFER_BYTES,
      cacheSize: options.leveldbCacheBytes ?? DEFAULT_LEVELDB_CACHE_BYTES,
    });
    try {
      await db.open();
    } catch (error) {
      throw await openFailure(paths, error);
    }
    // From here on we hold the LevelDB lock: no other store touches the
    // directory, which is what makes creating the secret race-free.
    try {
      // A read that writes nothing (verification) upgrades nothing. Format 2
      // differs from this build's only by the version in its meta record, so
      // it is read as it is; format 1's keys would have to move: refused.
      const older = options.upgradeFormat === false ? await olderFormatOf(db) : undefined;
      if (older === 1) throw new FormatUpgradeNeededError(paths.dir, older, FORMAT_VERSION);
      if (older === undefined) {
        // One step at a time, each crash-safe on its own: a crash between two
        // leaves a directory of the format in between, upgraded on from there.
        if (await upgradeFromFormat1(db, paths.dir)) {
          options.notice?.(`data directory ${paths.dir} upgraded to format 2`);
        }
        if (await upgradeFromFormat2(db, paths.dir)) {
          options.notice?.(`data directory ${paths.dir} upgraded to format ${FORMAT_VERSION}`);
        }
      }
      const {
        journal,
        meta: metaLevel,
        snapshot: snapshotLevel,
        keyed: keyedLevel,
      } = levelLayout(db);
      const keyed = await KeyedRecords.open(keyedLevel);
      const tail = await readTail(journal, clock);
      const { meta, nodeSecret } = await loadIdentity(
        paths,
        db,
        metaLevel,
        tail.lastOp > 0,
        older ?? FORMAT_VERSION,
      );
      const firstOp = await readFirstOp(metaLevel);
      const store = new JournalStore({
        paths,
        db,
        journal,
        metaLevel,
        snapshotLevel,
        keyed,
        nodeSecret,
        meta,
        tail,
        firstOp,
        options,
        snapshotsKept,
      });
      // A node killed between a snapshot and its compaction left history that
      // only the next snapshot would delete: retention's bound would stretch by
      // a snapshot interval per such kill. Catch up now, in the background.
      if (retainSnapshots > 0) store.#compactInBackground();
      return store;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  /** The keyed records of module states, as the newest snapshot with keyed state left them. */
  get keyed(): KeyedRecordReader {
    return this.#keyed;
  }

  /** The meta record as last written (settings included). */
  get meta(): NodeMeta {
    return this.#meta;
  }

  /** `meta.settings`: what the last `updateSettings` wrote, `null` until then. */
  get settings(): unknown {
    return this.#meta.settings;
  }

  /**
   * Lowest op `readBatches` can start at: 1, or once compacted the op of the
   * snapshot the retained history starts at (ops below it are gone).
   */
  get firstOp(): number {
    return this.#firstOp;
  }

  /** Highest op assigned (its entry may still be syncing); 0 when empty. */
  get lastOp(): number {
    return this.#lastOp;
  }

  /** Highest op known to be synced to disk. */
  get durableOp(): number {
    return this.#commit.durableOp;
  }

  /** Timestamp of {@link lastOp} (0n when the journal is empty). */
  get lastTimestamp(): bigint {
    return this.#lastTimestamp;
  }

  /** Entries appended but not yet durable (0 once failed). */
  get pendingCount(): number {
    return this.#commit.pendingCount;
  }

  /** Synced batches written, and the entries in them, since open (the group commit's effect). */
  get writeStats(): { readonly batches: number; readonly entries: number } {
    return this.#commit.writeStats;
  }

  /** The {@link JournalFailedError} of the first failed write; the store is then dead. */
  get failed(): Error | undefined {
    return this.#commit.failure;
  }

  /**
   * Appends an entry. Its op (`lastOp + 1`) and timestamp (`max(lastTimestamp,
   * clock())`) are assigned now, so op order is call order and timestamps
   * never decrease. Resolves once the entry is synced, after the `onDurable`
   * listeners saw it.
   *
   * A bad draft throws {@link InvalidEntryError} synchronously and takes no op.
   * Rejects with {@link JournalFailedError} if its group (or an earlier one)
   * failed, {@link JournalClosedError} once `close` was called.
   */
  append(draft: EntryDraft): Promise<JournalEntry> {
    let prepared: { entry: JournalEntry; put: JournalPut };
    try {
      prepared = this.#prepare(draft);
    } catch (error) {
      if (error instanceof InvalidEntryError) throw error;
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#commit.submit(prepared.entry, prepared.put);
  }

  /**
   * Appends like `append`, but returns the entry (with its op and timestamp)
   * at once and makes no promise for it: durability is reported to the
   * `onDurable` listeners, a failed write to the `onFailure` listeners. For a
   * caller that applies entries from `onDurable` anyway, this saves two
   * promises per entry on the hot path. Throws where `append` would reject.
   */
  enqueue(draft: EntryDraft, options?: EnqueueOptions): JournalEntry {
    let prepared: { entry: JournalEntry; put: JournalPut };
    try {
      prepared = this.#prepare(draft);
    } catch (error) {
      // The entry that was to carry a held one is refused: the held one goes alone.
      this.#commit.writeHeld();
      throw error;
    }
    this.#commit.enqueue(prepared.entry, prepared.put, options?.withNext === true);
    return prepared.entry;
  }

  /**
   * Queues a copy of an entry another journal assigned (in cluster mode, the
   * replicated stream's), keeping its op and timestamp, so this store holds
   * the node's applied copy byte for byte. Durability is reported like
   * `enqueue`'s. Throws {@link InvalidEntryError} when the entry does not
   * continue this journal (its op is not `lastOp + 1`, or its timestamp is
   * below the last entry's), taking nothing.
   *
   * `encoded`, when given, is the entry's encoding as this codec wrote it
   * and a reader verified it (the stream's message, the writer's group): it
   * is stored as is, which spares a second validation, encoding and
   * checksum per entry on every node of a cluster.
   */
  enqueueCopy(copy: JournalEntry, encoded?: Buffer): JournalEntry {
    if (encoded === undefined) assertValidDraft(copy);
    this.#assertAppendable();
    if (copy.op !== this.#lastOp + 1) {
      throw new InvalidEntryError(
        'op',
        `${copy.op} does not follow this journal's last op ${this.#lastOp}`,
      );
    }
    if (copy.timestamp < this.#lastTimestamp) {
      throw new InvalidEntryError(
        'timestamp',
        `${copy.timestamp} is below this journal's last timestamp ${this.#lastTimestamp}`,
      );
    }
    const { entry, encoded: value } =
      encoded === undefined ? stampEntry(copy, copy.op, copy.timestamp) : { entry: copy, encoded };
    this.#lastOp = copy.op;
    this.#lastTimestamp = copy.timestamp;
    this.#commit.enqueue(entry, { type: 'put', key: this.#journalKey(copy.op), value });
    return entry;
  }

  /** Throws why this store takes no entry now: failed, closing, or truncating. */
  #assertAppendable(): void {
    const failure = this.#commit.failure;
    if (failure !== undefined) throw failure;
    if (this.#closing !== undefined) throw new JournalClosedError(this.dir, 'append');
    if (this.#truncating) throw new JournalBusyError('append', 'the journal is being truncated');
  }

  /** Checks the store can take `draft`, assigns its op and timestamp, encodes it. */
  #prepare(draft: EntryDraft): { entry: JournalEntry; put: JournalPut } {
    assertValidDraft(draft);
    this.#assertAppendable();
    const op = this.#lastOp + 1;
    const timestamp = nextTimestamp(this.#clock(), this.#lastTimestamp);
    // Throws for a clock beyond u64; nothing is assigned before it returns.
    const { entry, encoded: value } = stampEntry(draft, op, timestamp);
    this.#lastOp = op;
    this.#lastTimestamp = timestamp;
    return { entry, put: { type: 'put', key: this.#journalKey(op), value } };
  }

  /** The root-database key of `op`'s entry: the journal prefix, then the op key. */
  #journalKey(op: number): Buffer {
    const prefix = this.#journalKeyPrefix;
    const key = Buffer.allocUnsafe(prefix.length + OP_KEY_BYTES);
    prefix.copy(key, 0);
    writeOpKey(op, key, prefix.length);
    return key;
  }

  /**
   * Calls `listener` synchronously with each synced group's entries, in op
   * order, before the appends of that group resolve. Returns the unsubscribe
   * function. A throwing listener surfaces as an uncaught exception.
   */
  onDurable(listener: (entries: readonly JournalEntry[]) => void): () => void {
    return this.#commit.onDurable(listener);
  }

  /**
   * Calls `listener` after each group's batch write succeeded, before its
   * entries are reported durable, with the entry count and how long the
   * write (the fsync, when `syncWrites` is on) took. For metrics: it costs
   * two clock reads per batch, none per entry, and nothing without a listener.
   * Returns the unsubscribe function.
   */
  onBatchWritten(listener: BatchWrittenListener): () => void {
    this.#batchListeners = [...this.#batchListeners, listener];
    return () => {
      this.#batchListeners = this.#batchListeners.filter((other) => other !== listener);
    };
  }

  /** Calls `listener` once, when the first write fails. Returns the unsubscribe function. */
  onFailure(listener: (error: Error) => void): () => void {
    return this.#commit.onFailure(listener);
  }

  /**
   * Reads ops `fromOp`.. the end in batches of up to `batchSize` entries, each
   * verified (checksum, kind, op) and checked to follow the previous one.
   * Throws {@link JournalCorruptionError} naming the first bad or missing op.
   *
   * The journal must hold `fromOp` unless it holds nothing at or after it; it
   * must also reach every op that was durable when the read started. Throws
   * {@link JournalCompactedError} for a `fromOp` below {@link firstOp}.
   */
  readBatches(
    fromOp: number,
    batchSize: number = DEFAULT_READ_BATCH_SIZE,
  ): AsyncIterable<JournalEntry[]> {
    if (!Number.isSafeInteger(fromOp) || fromOp < 1) {
      throw new RangeError(`fromOp must be an integer >= 1: ${fromOp}`);
    }
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`batchSize must be an integer >= 1: ${batchSize}`);
    }
    this.#assertOpen('read the journal');
    if (fromOp < this.#firstOp) throw new JournalCompactedError(fromOp, this.#firstOp);
    return this.#readBatches(fromOp, batchSize, this.#commit.durableOp);
  }

  async *#readBatches(
    fromOp: number,
    batchSize: number,
    durableOp: number,
  ): AsyncGenerator<JournalEntry[]> {
    let expectedOp = fromOp;
    // Values only: every entry stores its own op under its checksum, and
    // decodeEntry checks it against the op expected next, so the key would
    // only repeat what the value proves (see `gapError` for the message a
    // missing op gets). Not reading keys saves one native Buffer per entry.
    const options: IteratorOptions<Buffer, Buffer> = {
      gte: encodeOpKey(fromOp),
      keys: false,
      // A sublevel hands its iterator options on to classic-level's.
      highWaterMarkBytes: READ_BATCH_BYTES,
    };
    const iterator = this.#journal.iterator(options);
    // Read-ahead: LevelDB fetches the next batch (on its own thread) while
    // this one is decoded and applied, so replay is not read, apply, read, …
    let next: Promise<Array<[undefined, Buffer]>> | undefined = nextRows(iterator, batchSize);
    try {
      for (;;) {
        const rows = await next;
        next = undefined;
        if (rows.length === 0) break;
        next = nextRows(iterator, batchSize);
        const entries = new Array<JournalEntry>(rows.length);
        for (let i = 0; i < rows.length; i++) {
          const value = rows[i][1];
          try {
            entries[i] = decodeEntry(value, expectedOp);
          } catch (error) {
            throw gapError(value, expectedOp) ?? error;
          }
          expectedOp++;
        }
        yield entries;
      }
    } finally {
      // An in-flight read must settle before the iterator closes.
      await next?.catch(() => undefined);
      await iterator.close();
    }
    if (expectedOp <= durableOp) {
      throw new JournalCorruptionError(
        expectedOp,
        `it is missing (the journal ends at op ${expectedOp - 1}, op ${durableOp} was durable)`,
      );
    }
  }

  /**
   * Operator repair: deletes ops `op` and later, and every snapshot of a state
   * that included them. Returns how many journal entries were dropped; the
   * journal then ends at `op - 1` (or where it ended, if that was earlier).
   *
   * Snapshots go first and the journal is cut from its end backwards, in
   * synced chunks, so a crash midway leaves a shorter but contiguous journal
   * and never a snapshot beyond it. Refused while appends are in flight.
   */
  async truncateFrom(op: number): Promise<number> {
    if (!Number.isSafeInteger(op) || op < 1) {
      throw new RangeError(`op must be an integer >= 1: ${op}`);
    }
    this.#assertWritable('truncate the journal');
    if (this.#truncating) {
      throw new JournalBusyError('truncate the journal', 'a truncation is already running');
    }
    if (this.#commit.pendingCount > 0) {
      throw new JournalBusyError(
        'truncate the journal',
        `${this.#commit.pendingCount} appended entries are not yet durable`,
      );
    }
    if (this.#compaction !== undefined) {
      throw new JournalBusyError('truncate the journal', 'a compaction is running');
    }
    await this.#assertTruncationKeepsBase(op);
    this.#truncating = true;
    try {
      return await this.#track(this.#truncate(op));
    } finally {
      this.#truncating = false;
    }
  }

  /**
   * On a compacted journal, truncating at `op` must leave a readable
   * snapshot that covers the compacted ops (at `firstOp - 1` or later, below
   * `op`): without one nothing could rebuild the state.
   */
  async #assertTruncationKeepsBase(op: number): Promise<void> {
    if (this.#firstOp <= 1) return;
    const snapshots = await this.#snapshots.list();
    const base = snapshots.some(
      (record) => 'payload' in record && record.op >= this.#firstOp - 1 && record.op < op,
    );
    if (!base) {
      throw new JournalCompactedError(op, this.#firstOp, {
        truncation: `truncating at op ${op} would delete every snapshot that covers the ops compacted below op ${this.#firstOp}`,
      });
    }
  }

  async #truncate(op: number): Promise<number> {
    await this.#snapshots.deleteFrom(op);
    let droppedCount = 0;
    const iterator = this.#journal.keys({ gte: encodeOpKey(op), reverse: true });
    try {
      for (;;) {
        const keys = await iterator.nextv(TRUNCATE_CHUNK_SIZE);
        if (keys.length === 0) break;
        await this.#db.batch(
          keys.map((key) => ({ type: 'del' as const, sublevel: this.#journal, key })),
          { sync: true },
        );
        droppedCount += keys.length;
      }
    } finally {
      await iterator.close();
    }
    const tail = await readTail(this.#journal, this.#clock);
    this.#lastOp = tail.lastOp;
    this.#lastTimestamp = tail.lastTimestamp;
    this.#commit.rewind(tail.lastOp);
    return droppedCount;
  }

  /**
   * Stores a snapshot of the state after applying `op` (at most
   * {@link durableOp}: a snapshot must never include an entry that could still
   * be lost) in one synced put, then deletes all but the newest
   * `snapshotsKept`.
   *
   * `keyed`: the keyed records changed since the previous snapshot, written
   * in the same synced batch with a head naming `op`, so the records on disk
   * are always the state of the newest snapshot that carried them.
   */
  async saveSnapshot(
    op: number,
    payload: Buffer,
    keyed?: KeyedCheckpoint,
    options: SaveSnapshotOptions = {},
  ): Promise<void> {
    if (!Number.isSafeInteger(op) || op < 0) {
      throw new RangeError(`snapshot op must be an integer >= 0: ${op}`);
    }
    if (op > this.#commit.durableOp) {
      throw new RangeError(
        `snapshot op ${op} is beyond the durable end of the journal (op ${this.#commit.durableOp})`,
      );
    }
    if (!(payload instanceof Uint8Array)) {
      throw new TypeError('snapshot payload must be a Buffer');
    }
    this.#assertWritable('save a snapshot');
    // Keyed records are format 3's: in a directory read as format 2 (opened
    // without its upgrade) they would make it one no build can open.
    if (keyed !== undefined && this.#meta.formatVersion !== FORMAT_VERSION) {
      throw new FormatUpgradeNeededError(this.dir, this.#meta.formatVersion, FORMAT_VERSION);
    }
    const sync = options.sync !== false;
    if (keyed === undefined) {
      await this.#track(this.#snapshots.save(op, payload, undefined, sync));
    } else {
      await this.#track(
        this.#snapshots.save(
          op,
          payload,
          (batch, encoded) => this.#keyed.fill(batch, keyed, op, encoded),
          sync,
        ),
      );
      this.#keyed.written({ generation: keyed.generation, op });
      this.#deleteOldKeyedGenerations();
    }
    if (this.#retainSnapshots > 0 && options.compact !== false) this.#compactInBackground();
  }

  /**
   * Deletes the journal's entries below the oldest of the newest
   * `retainSnapshots` readable snapshots (default: the store's option, or 2
   * when it has none), then finishes what an interrupted compaction left. The new
   * first op is recorded (synced) before the first delete; the deletes go in
   * synced batches of `compactBatchKeys` keys, lowest ops first, so a crash
   * at any point leaves a journal that is contiguous up to its end and
   * starts at or below the recorded first op, with a snapshot covering
   * everything before it. Commits go on meanwhile. Nothing happens while
   * fewer readable snapshots exist. For operators' tools (`once compact` on
   * a stopped directory) as well as the background runs after a snapshot;
   * a call made while one runs starts once it ends.
   */
  compact(options: { retainSnapshots?: number } = {}): Promise<CompactionResult> {
    const retain = options.retainSnapshots ?? (this.#retainSnapshots || DEFAULT_COMPACT_RETAIN);
    if (!Number.isSafeInteger(retain) || retain < 1) {
      throw new RangeError(`retainSnapshots must be an integer >= 1: ${retain}`);
    }
    this.#assertWritable('compact the journal');
    if (this.#truncating) {
      throw new JournalBusyError('compact the journal', 'a truncation is running');
    }
    // One at a time: a call made while one runs starts after it, so it sees
    // the snapshots saved meanwhile.
    const previous = this.#compaction?.catch(() => undefined) ?? Promise.resolve();
    const run: Promise<CompactionResult> = this.#track(previous.then(() => this.#compact(retain)));
    this.#compaction = run;
    void run
      .finally(() => {
        if (this.#compaction === run) this.#compaction = undefined;
      })
      .catch(() => undefined);
    return run;
  }

  async #compact(retain: number): Promise<CompactionResult> {
    const target: CompactionTarget = {
      db: this.#db,
      journal: this.#journal,
      metaLevel: this.#metaLevel,
      batchKeys: this.#compactBatchKeys,
      beforeBatch: this.#options.beforeCompactBatch,
      stopping: () => this.#closing !== undefined || this.#truncating,
    };
    const start = retentionStart(await this.#snapshots.list(), retain, this.#commit.durableOp);
    if (start !== undefined && start > this.#firstOp) {
      await recordFirstOp(target, start);
      this.#firstOp = start;
    }
    const deleted = await deleteBelow(target, this.#firstOp);
    return { firstOp: this.#firstOp, ...deleted };
  }

  /** After a snapshot of a new keyed generation: the older ones' records go, in the background. */
  #deleteOldKeyedGenerations(): void {
    if (this.#closing !== undefined) return;
    void this.#track(this.#keyed.deleteOldGenerations()).catch((error: unknown) =>
      this.#options.notice?.(
        `old keyed-state records could not be deleted (${error instanceof Error ? error.message : String(error)}); the next snapshot retries`,
      ),
    );
  }

  /** After a snapshot: compacts in the background, once more if a snapshot came meanwhile. */
  #compactInBackground(): void {
    if (this.#compaction !== undefined) {
      this.#compactAgain = true;
      return;
    }
    if (this.#closing !== undefined || this.#truncating || this.#commit.failure) return;
    const started = performance.now();
    this.compact().then(
      (result) => {
        if (result.deletedEntries > 0) {
          this.#options.onCompaction?.({
            ...result,
            elapsedMs: Math.round(performance.now() - started),
          });
        }
        if (this.#compactAgain) {
          this.#compactAgain = false;
          this.#compactInBackground();
        }
      },
      (error: unknown) => {
        this.#compactAgain = false;
        this.#options.notice?.(
          `journal compaction stopped (${error instanceof Error ? error.message : String(error)}); the entries it did not delete stay, the next snapshot retries`,
        );
      },
    );
  }

  /** Stored snapshots, newest first; unusable ones as error records, never a throw. */
  async listSnapshots(): Promise<SnapshotRecord[]> {
    this.#assertOpen('list snapshots');
    return this.#keyed.mendNewest(await this.#snapshots.list(), (damaged) =>
      this.#options.notice?.(`${damaged}; the copy written with the keyed records is used`),
    );
  }

  /** Replaces `meta.settings` with (a JSON copy of) `settings`, synced. */
  async updateSettings(settings: unknown): Promise<void> {
    const text = JSON.stringify(settings);
    if (text === undefined) {
      throw new TypeError('settings must be JSON-serializable');
    }
    this.#assertWritable('update settings');
    const meta: NodeMeta = Object.freeze({ ...this.#meta, settings: JSON.parse(text) as unknown });
    await this.#track(putMeta(this.#db, this.#metaLevel, meta));
    this.#meta = meta;
  }

  /**
   * Stops accepting appends and other writes, waits for the groups already
   * queued to be written (or to fail) and for running truncations, snapshot
   * and settings writes to settle, then closes LevelDB. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await this.#commit.whenIdle();
    await Promise.allSettled([...this.#otherWrites]);
    await this.#db.close();
  }

  /** Registers a non-append write so that `close` waits for it. */
  async #track<T>(write: Promise<T>): Promise<T> {
    this.#otherWrites.add(write);
    try {
      return await write;
    } finally {
      this.#otherWrites.delete(write);
    }
  }

  #assertOpen(operation: string): void {
    if (this.#closing !== undefined) throw new JournalClosedError(this.dir, operation);
  }

  #assertWritable(operation: string): void {
    this.#assertOpen(operation);
    const failure = this.#commit.failure;
    if (failure !== undefined) throw failure;
  }
}

/**
 * The journal's end: the op of the last key and the timestamp of its entry.
 * An entry that does not decode still counts (replay reports it, and
 * `truncateFrom` repairs it); its timestamp then comes from the clock.
 */
async function readTail(journal: JournalLevel, clock: () => bigint): Promise<JournalTail> {
  const rows = await journal.iterator({ reverse: true, limit: 1 }).all();
  if (rows.length === 0) return { lastOp: 0, lastTimestamp: 0n };
  const [key, value] = rows[0];
  const lastOp = decodeOpKey(key);
  if (lastOp === undefined) {
    throw new JournalCorruptionError(
      claimedOp(key),
      `its key 0x${key.toString('hex')} is not an 8-byte op key`,
    );
  }
  try {
    return { lastOp, lastTimestamp: decodeEntry(value, lastOp).timestamp };
  } catch (error) {
    if (error instanceof JournalCorruptionError) return { lastOp, lastTimestamp: clock() };
    throw error;
  }
}

/**
 * Loads (or, for a new directory, creates) the node secret and the meta
 * record, and checks that they belong together.
 */
async function loadIdentity(
  paths: DataDirectoryPaths,
  db: Level,
  metaLevel: MetaLevel,
  journalHasEntries: boolean,
  formatVersion: number,
): Promise<{ meta: NodeMeta; nodeSecret: Buffer }> {
  const storedMeta = await metaLevel.get(META_KEY);
  if (storedMeta === undefined) {
    if (journalHasEntries) {
      throw new NodeMetaCorruptionError(
        paths.dir,
        'it is missing although the journal has entries',
      );
    }
    // A new directory. A secret file may already be there: provisioned by the
    // operator, or left by a start that crashed before writing meta. It was
    // never used (no meta, no journal), so adopting it is safe.
    const nodeSecret =
      (await readNodeSecret(paths.nodeSecret)) ?? (await createNodeSecret(paths.nodeSecret));
    const meta = newNodeMeta(nodeSecret, Date.now());
    await putMeta(db, metaLevel, meta);
    return { meta, nodeSecret };
  }
  const meta = parseNodeMeta(paths.dir, storedMeta, formatVersion);
  const nodeSecret = await readNodeSecret(paths.nodeSecret);
  if (nodeSecret === undefined) {
    throw new NodeSecretMismatchError(
      paths.nodeSecret,
      `the file is missing, but the directory was created with a secret of fingerprint ${meta.secretFingerprint}`,
    );
  }
  const fingerprint = secretFingerprint(nodeSecret);
  if (fingerprint !== meta.secretFingerprint) {
    throw new NodeSecretMismatchError(
      paths.nodeSecret,
      `its fingerprint is ${fingerprint}, the directory was created with ${meta.secretFingerprint}`,
    );
  }
  return { meta, nodeSecret };
}

/**
 * Writes the meta record, synced. Through the root database's batch because
 * only its options carry `sync` (a sublevel forwards them, untyped).
 */
async function putMeta(db: Level, metaLevel: MetaLevel, meta: NodeMeta): Promise<void> {
  await db.batch(
    [{ type: 'put', sublevel: metaLevel, key: META_KEY, value: serializeNodeMeta(meta) }],
    { sync: true },
  );
}

/** The meta record of a new data directory, written (synced) into the LevelDB at `leveldb`. */
async function initializeLevelDb(leveldb: string, nodeSecret: Buffer): Promise<void> {
  const db: Level = new ClassicLevel<Buffer, Buffer>(leveldb, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
  });
  await db.open();
  try {
    await putMeta(db, metaSublevel(db), newNodeMeta(nodeSecret, Date.now()));
  } finally {
    await db.close();
  }
}

/** Why LevelDB would not open the data directory, as an error that says so. */
async function openFailure(paths: DataDirectoryPaths, error: unknown): Promise<Error> {
  if (isLockError(error)) {
    return new DataDirectoryInUseError(paths.dir, { cause: error }, lockHolder(error));
  }
  const manifest = await neverCompletedManifest(paths.leveldb);
  if (manifest !== undefined) {
    return new DataDirectoryIncompleteError(paths.dir, manifest, { cause: error });
  }
  return new DataDirectoryUnreadableError(paths.dir, innermostMessage(error), { cause: error });
}

/** The message of the deepest cause (LevelDB's own reason), duck-typed like {@link isLockError}. */
function innermostMessage(error: unknown): string {
  let message = String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const { message: text, cause } = current as { message?: unknown; cause?: unknown };
    if (typeof text === 'string') message = text;
    current = cause;
  }
  return message;
}

/** The op a malformed key would name: its first 8 bytes, zero-padded, big-endian. */
function claimedOp(key: Buffer): number {
  const padded = Buffer.alloc(8);
  key.copy(padded, 0, 0, 8);
  return padded.readUInt32BE(0) * 2 ** 32 + padded.readUInt32BE(4);
}

/**
 * classic-level reports a held lock as LEVEL_DATABASE_NOT_OPEN caused by
 * LEVEL_LOCKED. Duck-typed: errors made by native code or in another realm
 * (a test VM) are not `instanceof Error` here.
 */
/**
 * LevelDB tells a lock this process holds ("already held by process") from
 * one another process holds (the OS refuses the file lock).
 */
function lockHolder(error: unknown): 'another-process' | 'this-process' {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const { message, cause } = current as { message?: unknown; cause?: unknown };
    if (typeof message === 'string' && message.includes('already held by process')) {
      return 'this-process';
    }
    current = cause;
  }
  return 'another-process';
}

function isLockError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (code === 'LEVEL_LOCKED') return true;
    current = cause;
  }
  return false;
}

/**
 * Up to `count` rows of a values-only journal iterator. abstract-level types
 * `nextv` as key-value pairs whatever the options; with `keys: false` the
 * key is undefined.
 */
function nextRows(
  iterator: { nextv(count: number): Promise<Array<[unknown, Buffer]>> },
  count: number,
): Promise<Array<[undefined, Buffer]>> {
  return iterator.nextv(count) as Promise<Array<[undefined, Buffer]>>;
}

/**
 * The error for a stored entry that is intact but not `expectedOp`: a later
 * op means the ops between are missing (a gap); an earlier one is an entry
 * stored under another op's key, which decodeEntry's own error says. Undefined
 * when the bytes do not decode at all (decodeEntry's error says why).
 */
function gapError(value: Buffer, expectedOp: number): JournalCorruptionError | undefined {
  let storedOp: number;
  try {
    storedOp = decodeEntry(value).op;
  } catch {
    return undefined;
  }
  return storedOp > expectedOp
    ? new JournalCorruptionError(expectedOp, `it is missing (the next stored op is ${storedOp})`)
    : undefined;
}
