import { type JournalEntry, encodeEntry } from '@once/journal/internal';
import { type StoredEntries } from '../journal/journal-message';
import { LocalTailDivergedError } from './local-tail-diverged.error';

/** Where a follower reads the cluster's journal: a `JetStreamJournal` (any instance reads). */
export interface FollowedStream {
  /** Ops `fromOp`.. the stream's end; an aborted `signal` ends the read and throws its reason. */
  readBatches(
    fromOp: number,
    batchSize?: number,
    options?: { signal?: AbortSignal },
  ): AsyncIterable<JournalEntry[]>;
  /** The entries from `fromOp` on, as they are appended, with the bytes the stream stored them as. */
  follow(fromOp: number, options?: { signal?: AbortSignal }): AsyncIterable<StoredEntries>;
  /** The stream's last op now, asked of the stream leader. */
  streamLastOp(): Promise<number>;
}

/** Options of {@link StreamFollower.start}. */
export interface StreamFollowerOptions {
  /**
   * How often the follower compares what it copied with the stream's end,
   * ms: a read that copied nothing over a whole interval while the stream
   * held more at its start is abandoned and a new one begins after the last
   * op copied. Default 2000 ms.
   */
  readonly stallCheckIntervalMs?: number;
  /** Hears of each abandoned read, with the last op copied (to log it). Default: nothing. */
  readonly onStalled?: (copiedOp: number) => void;
}

const STALL_CHECK_INTERVAL_MS_DEFAULT = 2_000;

/** The node's local copy: a `JournalStore`, whose `onDurable` reports what was copied. */
export interface LocalCopy {
  readonly lastOp: number;
  /** Lowest op the copy holds (retention may have compacted the ops below it); default 1. */
  readonly firstOp?: number;
  readBatches(fromOp: number, batchSize?: number): AsyncIterable<JournalEntry[]>;
  /** Stores `entry` after the last op; `encoded` is its encoding as the stream stored it, verified. */
  enqueueCopy(entry: JournalEntry, encoded: Buffer): JournalEntry;
}

/** How many of the local journal's last entries are compared with the stream before following. */
const TAIL_CHECK_ENTRIES = 64;
/**
 * Stall checks in a row without a batch after which the read of the tail
 * is abandoned: a few, since it reads at most {@link TAIL_CHECK_ENTRIES} ops
 * and a new read's consumer may take a while on a loaded server.
 */
const TAIL_READ_SILENT_CHECKS_MAX = 5;

/**
 * Copies the cluster's stream into the node's local journal, entry by entry
 * with the stream's ops and timestamps, so the local `onDurable` reports them
 * and the engine applies them through the one apply path, exactly as it
 * applies its own commits and replays.
 *
 * The read is watched: JetStream keeps a reader's consumer on one server, and
 * when that server dies the client library waits for it to come back (and,
 * once it is back, for two missed idle heartbeats more) before it reads on,
 * while the other servers hold every message. So a read that copies nothing
 * over an interval while the stream held more at its start is abandoned and
 * a new one begins after the last op copied, on a consumer a live server
 * takes.
 *
 * Before following, the local tail is checked against the stream: a local
 * entry the stream does not hold, or holds with other bytes, stops the start
 * with {@link LocalTailDivergedError} naming the op, rather than building a
 * state no other node has.
 */
export class StreamFollower {
  readonly #abort = new AbortController();
  #copiedOp: number;
  #failure: Error | undefined;
  readonly #done: Promise<void>;
  readonly #options: StreamFollowerOptions;
  /** The copied op and the stream's end at the last stall check. */
  #checked = { copiedOp: -1, streamOp: 0 };
  #checking = false;
  #restarts = 0;

  private constructor(
    private readonly stream: FollowedStream,
    private readonly local: LocalCopy,
    onFailure: (error: Error) => void,
    options: StreamFollowerOptions,
  ) {
    this.#options = options;
    this.#copiedOp = local.lastOp;
    this.#done = this.#run().catch((error: unknown) => {
      if (this.#abort.signal.aborted) return;
      this.#failure = error instanceof Error ? error : new Error(String(error));
      onFailure(this.#failure);
    });
  }

  /**
   * Checks the local tail against the stream, then copies every entry after
   * it as it is appended. `onFailure` hears of a copy that failed (the local
   * journal failed or refused an entry); the follower then stops.
   */
  static async start(
    stream: FollowedStream,
    local: LocalCopy,
    onFailure: (error: Error) => void = () => undefined,
    options: StreamFollowerOptions = {},
  ): Promise<StreamFollower> {
    await checkLocalTail(stream, local, options);
    return new StreamFollower(stream, local, onFailure, options);
  }

  /** The highest op handed to the local journal (its durability is the journal's to report). */
  get copiedOp(): number {
    return this.#copiedOp;
  }

  /** How many reads were abandoned for copying nothing while the stream held more. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Why the follower stopped by itself, if it did. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Stops following; resolves once no more entries will be copied. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#done;
  }

  async #run(): Promise<void> {
    for (;;) {
      const stalled = new AbortController();
      const signal = AbortSignal.any([this.#abort.signal, stalled.signal]);
      const timer = setInterval(
        () => void this.#checkStall(stalled),
        this.#options.stallCheckIntervalMs ?? STALL_CHECK_INTERVAL_MS_DEFAULT,
      );
      try {
        for await (const { entries, encoded } of this.stream.follow(this.#copiedOp + 1, {
          signal,
        })) {
          if (signal.aborted) break;
          entries.forEach((entry, i) => {
            if (entry.op <= this.#copiedOp) return;
            this.local.enqueueCopy(entry, encoded[i]);
            this.#copiedOp = entry.op;
          });
        }
      } finally {
        clearInterval(timer);
      }
      if (this.#abort.signal.aborted || !stalled.signal.aborted) return;
      this.#restarts++;
      this.#checked = { copiedOp: -1, streamOp: 0 };
      this.#options.onStalled?.(this.#copiedOp);
    }
  }

  /**
   * Abandons the read (`stalled`) when nothing was copied since the last
   * check although the stream then held an op past the copy; then notes
   * where the copy and the stream stand now. A stream leader that does not
   * answer (an election, NATS unreachable) gives nothing to compare with:
   * the read is left to wait like every other request.
   */
  async #checkStall(stalled: AbortController): Promise<void> {
    if (this.#checking) return;
    const copiedOp = this.#copiedOp;
    if (copiedOp === this.#checked.copiedOp && copiedOp < this.#checked.streamOp) {
      stalled.abort();
      return;
    }
    this.#checking = true;
    try {
      const streamOp = await this.stream.streamLastOp().catch(() => 0);
      if (!stalled.signal.aborted) this.#checked = { copiedOp, streamOp };
    } finally {
      this.#checking = false;
    }
  }
}

/** Compares the local journal's last entries with the stream's, byte for byte. */
async function checkLocalTail(
  stream: FollowedStream,
  local: LocalCopy,
  options: StreamFollowerOptions,
): Promise<void> {
  const lastOp = local.lastOp;
  if (lastOp === 0) return;
  const fromOp = Math.max(local.firstOp ?? 1, lastOp - TAIL_CHECK_ENTRIES + 1);
  const mine = await collect(local.readBatches(fromOp), lastOp);
  const theirs = await readStreamTail(stream, fromOp, lastOp, options);
  for (const entry of mine.values()) {
    const other = theirs.get(entry.op);
    if (!other) {
      throw new LocalTailDivergedError(entry.op, 'the stream does not hold this op');
    }
    if (!encodeEntry(entry).equals(encodeEntry(other))) {
      throw new LocalTailDivergedError(entry.op, 'the stream holds other bytes at this op');
    }
  }
}

/**
 * The stream's ops `fromOp`..`lastOp`, by op. A read that yields nothing over
 * several stall check intervals is abandoned and a new one begins, as the
 * follower's own reads are: a read whose consumer's server died would
 * otherwise wait for good, and with it the start of the follower (and a
 * takeover, which follows first).
 */
async function readStreamTail(
  stream: FollowedStream,
  fromOp: number,
  lastOp: number,
  options: StreamFollowerOptions,
): Promise<Map<number, JournalEntry>> {
  const intervalMs = options.stallCheckIntervalMs ?? STALL_CHECK_INTERVAL_MS_DEFAULT;
  for (;;) {
    const stalled = new AbortController();
    let batches = 0;
    let silentChecks = 0;
    const timer = setInterval(() => {
      silentChecks = batches === 0 ? silentChecks + 1 : 0;
      batches = 0;
      if (silentChecks >= TAIL_READ_SILENT_CHECKS_MAX) {
        stalled.abort(new Error('the read of the stream tail yielded nothing'));
      }
    }, intervalMs);
    try {
      const read = stream.readBatches(fromOp, undefined, { signal: stalled.signal });
      return await collect(read, lastOp, () => batches++);
    } catch (error) {
      // Only the abandoned read starts again: a read that failed (NATS unreachable) fails the start.
      if (!stalled.signal.aborted || error !== stalled.signal.reason) throw error;
      options.onStalled?.(fromOp - 1);
    } finally {
      clearInterval(timer);
    }
  }
}

/** The entries of `batches` up to `lastOp`, by op; `onBatch` hears of each batch. */
async function collect(
  batches: AsyncIterable<JournalEntry[]>,
  lastOp: number,
  onBatch: () => void = () => undefined,
): Promise<Map<number, JournalEntry>> {
  const entries = new Map<number, JournalEntry>();
  for await (const batch of batches) {
    onBatch();
    for (const entry of batch) if (entry.op <= lastOp) entries.set(entry.op, entry);
    if (batch.length > 0 && batch[batch.length - 1].op >= lastOp) break;
  }
  return entries;
}
