import { EntryKind } from '@once/journal';
import { type JournalEntry, encodeEntry } from '@once/journal/internal';
import { type StoredEntries } from '../journal/journal-message';
import { type FollowedStream, type LocalCopy, StreamFollower } from './stream-follower';

const CHECK_MS = 20;

function entry(op: number): JournalEntry {
  return {
    kind: EntryKind.Command,
    client: '0'.repeat(32),
    session: 0,
    request: 0,
    userId: 0,
    requestChecksum: Buffer.alloc(16),
    body: Buffer.from(`entry ${op}`),
    op,
    timestamp: BigInt(op),
  };
}

const aborted = (signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (!signal || signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A stream of ops 1..`length` whose n-th read (0-based) delivers up to
 * `readsDeliverUpTo[n]` (everything when absent), one op at a time every
 * `opEveryMs`, then waits, delivering nothing more, until it is aborted:
 * what a read whose consumer's server died looks like.
 */
class ScriptedStream implements FollowedStream {
  /** The `fromOp` of each read, in order. */
  readonly reads: number[] = [];
  lastOpAnswer: () => Promise<number>;

  constructor(
    private readonly length: number,
    private readonly readsDeliverUpTo: number[] = [],
    private readonly opEveryMs = 0,
  ) {
    this.lastOpAnswer = () => Promise.resolve(length);
  }

  readBatches(): AsyncIterable<JournalEntry[]> {
    throw new Error('not read: the local copy is empty');
  }

  /** The bytes each op was yielded with, by op. */
  readonly yielded = new Map<number, Buffer>();

  async *follow(fromOp: number, options?: { signal?: AbortSignal }): AsyncIterable<StoredEntries> {
    const upTo = this.readsDeliverUpTo[this.reads.length] ?? this.length;
    this.reads.push(fromOp);
    for (let op = fromOp; op <= upTo && !options?.signal?.aborted; op++) {
      if (this.opEveryMs > 0) await pause(this.opEveryMs);
      const stored = entry(op);
      const encoded = encodeEntry(stored);
      this.yielded.set(op, encoded);
      yield { entries: [stored], encoded: [encoded] };
    }
    await aborted(options?.signal);
  }

  streamLastOp(): Promise<number> {
    return this.lastOpAnswer();
  }
}

class CopyList implements LocalCopy {
  readonly ops: number[] = [];
  /** The bytes each op was stored with, by op. */
  readonly stored = new Map<number, Buffer>();
  get lastOp(): number {
    return this.ops.at(-1) ?? 0;
  }
  readBatches(): AsyncIterable<JournalEntry[]> {
    throw new Error('not read: the copy starts empty');
  }
  enqueueCopy(copied: JournalEntry, encoded: Buffer): JournalEntry {
    this.ops.push(copied.op);
    this.stored.set(copied.op, encoded);
    return copied;
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 5_000) throw new Error(`still waiting for: ${what}`);
    await pause(5);
  }
}

describe('StreamFollower, copying the stream', () => {
  it('stores each entry with the very bytes the stream yielded it with, encoding nothing again', async () => {
    const stream = new ScriptedStream(3);
    const local = new CopyList();
    const follower = await StreamFollower.start(stream, local);
    try {
      await until(() => local.ops.length === 3, 'ops 1..3 copied');
    } finally {
      await follower.stop();
    }
    for (const op of [1, 2, 3]) expect(local.stored.get(op)).toBe(stream.yielded.get(op));
  });
});

describe('StreamFollower, when its read stops delivering', () => {
  let follower: StreamFollower | undefined;
  afterEach(async () => {
    await follower?.stop();
    follower = undefined;
  });

  it('abandons a read that copies nothing while the stream holds more, and reads on after the last op copied', async () => {
    const stream = new ScriptedStream(5, [2]);
    const local = new CopyList();
    const stalledAt: number[] = [];
    follower = await StreamFollower.start(stream, local, undefined, {
      stallCheckIntervalMs: CHECK_MS,
      onStalled: (op) => stalledAt.push(op),
    });

    await until(() => local.ops.length === 5, 'ops 1..5 copied');

    expect(local.ops).toEqual([1, 2, 3, 4, 5]);
    expect(stream.reads).toEqual([1, 3]);
    expect(stalledAt).toEqual([2]);
    expect(follower.restarts).toBe(1);
  });

  it('leaves alone a read that keeps copying, however far behind the stream it is', async () => {
    const stream = new ScriptedStream(40, [], CHECK_MS / 4);
    const local = new CopyList();
    follower = await StreamFollower.start(stream, local, undefined, {
      stallCheckIntervalMs: CHECK_MS,
    });

    await until(() => local.ops.length === 40, 'ops 1..40 copied');
    await pause(CHECK_MS * 4);

    expect(stream.reads).toEqual([1]);
    expect(follower.restarts).toBe(0);
  });

  it('leaves alone a read at the end of the stream, and one whose stream leader does not answer', async () => {
    const stream = new ScriptedStream(3, [2]);
    stream.lastOpAnswer = () => Promise.reject(new Error('no stream leader'));
    const local = new CopyList();
    follower = await StreamFollower.start(stream, local, undefined, {
      stallCheckIntervalMs: CHECK_MS,
    });
    await until(() => local.ops.length === 2, 'ops 1..2 copied');
    await pause(CHECK_MS * 4);
    expect(follower.restarts).toBe(0);

    // The read is at op 2 and the stream says so: nothing to catch up on.
    stream.lastOpAnswer = () => Promise.resolve(2);
    await pause(CHECK_MS * 4);
    expect(follower.restarts).toBe(0);
    expect(stream.reads).toEqual([1]);

    // Once the stream answers that it holds op 3, the read is abandoned and op 3 read anew.
    stream.lastOpAnswer = () => Promise.resolve(3);
    await until(() => local.ops.length === 3, 'op 3 copied');
    expect(stream.reads).toEqual([1, 3]);
  });
});

describe('StreamFollower, on a local copy that retention compacted', () => {
  /** Ops `firstOp`..`lastOp`; like a compacted JournalStore, it refuses a read below its first op. */
  class CompactedCopy implements LocalCopy {
    readonly ops: number[];
    constructor(
      readonly firstOp: number,
      lastOp: number,
    ) {
      this.ops = Array.from({ length: lastOp - firstOp + 1 }, (_, i) => firstOp + i);
    }
    get lastOp(): number {
      return this.ops.at(-1) ?? 0;
    }
    async *readBatches(fromOp: number): AsyncIterable<JournalEntry[]> {
      if (fromOp < this.firstOp) throw new Error(`op ${fromOp} was compacted away`);
      await pause(0);
      yield this.ops.filter((op) => op >= fromOp).map(entry);
    }
    enqueueCopy(copied: JournalEntry): JournalEntry {
      this.ops.push(copied.op);
      return copied;
    }
  }

  /** A stream of ops 1..size that serves reads as well as follows. */
  class FullStream implements FollowedStream {
    private readonly scripted: ScriptedStream;
    constructor(private readonly size: number) {
      this.scripted = new ScriptedStream(size);
    }
    async *readBatches(fromOp: number): AsyncIterable<JournalEntry[]> {
      await pause(0);
      yield Array.from({ length: this.size - fromOp + 1 }, (_, i) => entry(fromOp + i));
    }
    follow(fromOp: number, options?: { signal?: AbortSignal }): AsyncIterable<StoredEntries> {
      return this.scripted.follow(fromOp, options);
    }
    streamLastOp(): Promise<number> {
      return this.scripted.streamLastOp();
    }
  }

  let follower: StreamFollower | undefined;
  afterEach(async () => {
    await follower?.stop();
    follower = undefined;
  });

  /** A stream whose first read of the tail yields nothing until abandoned (its consumer's server died). */
  class DeadFirstReadStream extends FullStream {
    tailReads = 0;
    override async *readBatches(
      fromOp: number,
      batchSize?: number,
      options?: { signal?: AbortSignal },
    ): AsyncIterable<JournalEntry[]> {
      if (this.tailReads++ === 0) {
        await aborted(options?.signal);
        options?.signal?.throwIfAborted();
      }
      yield* super.readBatches(fromOp);
    }
  }

  it('abandons a read of its tail that yields nothing, and starts once a new read answers', async () => {
    const local = new CompactedCopy(1, 40);
    const stream = new DeadFirstReadStream(45);
    const stalledAt: number[] = [];
    follower = await StreamFollower.start(stream, local, undefined, {
      stallCheckIntervalMs: CHECK_MS,
      onStalled: (op) => stalledAt.push(op),
    });
    expect(stream.tailReads).toBe(2);
    expect(stalledAt).toEqual([0]);
    await until(() => local.lastOp === 45, 'ops 41..45 copied');
  });

  /** A stream whose read of the tail fails (NATS unreachable) only after a long wait. */
  class UnreachableStream extends FullStream {
    override async *readBatches(
      _fromOp: number,
      _batchSize?: number,
      options?: { signal?: AbortSignal },
    ): AsyncIterable<JournalEntry[]> {
      await aborted(options?.signal);
      yield* [];
      throw new Error('NATS unreachable');
    }
  }

  it('fails its start when the read of its tail fails, even after the read was given up as stalled', async () => {
    const start = StreamFollower.start(
      new UnreachableStream(45),
      new CompactedCopy(1, 40),
      undefined,
      {
        stallCheckIntervalMs: CHECK_MS,
      },
    );
    await expect(start).rejects.toThrow('NATS unreachable');
  });

  it('checks only the tail it still holds, then copies what follows', async () => {
    const local = new CompactedCopy(30, 40);
    follower = await StreamFollower.start(new FullStream(45), local, undefined, {
      stallCheckIntervalMs: CHECK_MS,
    });
    await until(() => local.lastOp === 45, 'ops 41..45 copied');
    expect(local.ops.slice(-5)).toEqual([41, 42, 43, 44, 45]);
  });
});
