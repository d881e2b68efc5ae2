import { type KeyedLevel } from './leveldb-layout';
import { type SnapshotRecord, decodeSnapshot } from './snapshot-codec';

/**
 * Where the keyed records of a data directory end: the generation they are
 * written under and the op of the snapshot written in the same batch.
 *
 * Why generations: a replay from op 1 (verification, or the fallback when
 * the newest snapshot does not restore) must start from empty keyed state,
 * and must do so synchronously, in the middle of a boot. It moves to a new
 * generation, which holds no record yet, instead of deleting millions of
 * keys first; the records of older generations are deleted in the
 * background once a snapshot of the new one is on disk.
 */
export interface KeyedHead {
  readonly generation: number;
  readonly op: number;
}

/**
 * The records a snapshot writes with it: those changed since the previous
 * one, each a key (the generation is added here) and its new value, or
 * undefined for a deleted record. Pulled lazily, a slice per event-loop turn,
 * so encoding a large change set never holds the loop for long.
 */
export interface KeyedCheckpoint {
  readonly generation: number;
  readonly changes: Iterator<readonly [key: Buffer, value: Buffer | undefined]>;
}

/** Synchronous reads of the keyed records, for the apply path. */
export interface KeyedRecordReader {
  /** The head written with the newest snapshot that had keyed state; undefined before any. */
  head(): KeyedHead | undefined;
  /**
   * The record `key` (its key as the store names it, UTF-8 on disk) of
   * `generation`, as its UTF-8 text, or undefined.
   */
  get(generation: number, key: string): string | undefined;
  /**
   * Every record of `generation` as stored, in key order (keys without the
   * generation); with `prefix`, only the keys that start with it.
   */
  records(
    generation: number,
    prefix?: Buffer,
  ): AsyncIterable<readonly [key: Buffer, value: Buffer]>;
}

/** Generation 0 is never used for records: the head and the snapshot's copy live under it. */
export const KEYED_HEAD_KEY = Buffer.from([0, 0, 0, 0, 0x68, 0x65, 0x61, 0x64]); // 0000 "head"
/** The key of the copy of the snapshot the records belong to (generation 0, "snap"). */
export const KEYED_SNAPSHOT_COPY_KEY = Buffer.from([0, 0, 0, 0, 0x73, 0x6e, 0x61, 0x70]);
const HEAD_KEY = KEYED_HEAD_KEY;
const COPY_KEY = KEYED_SNAPSHOT_COPY_KEY;
/** Changes encoded per event-loop turn while a checkpoint's batch is built. */
const CHANGES_PER_TURN = 2048;
/** Bytes of the buffer a read builds its key in (longer keys get a buffer of their own). */
const READ_KEY_BYTES = 4096;
/** A read's options: the key as bytes, the value as text (no Buffer made for it). */
const READ_OPTIONS = Object.freeze({ keyEncoding: 'buffer', valueEncoding: 'utf8' });

/** A native chained batch, as {@link JournalStore} writes its groups with (see there). */
export interface NativeChainedBatch {
  _put(key: Buffer, value: Buffer): void;
  _del(key: Buffer): void;
  _write(options: { sync: boolean }): Promise<void>;
  close(): Promise<void>;
}

function generationPrefix(generation: number): Buffer {
  const prefix = Buffer.allocUnsafe(4);
  prefix.writeUInt32BE(generation, 0);
  return prefix;
}

/** The least key above every key that starts with `prefix` (which is not all 0xff). */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  let at = end.length - 1;
  while (at >= 0 && end[at] === 0xff) at--;
  if (at < 0) throw new RangeError('a prefix of 0xff bytes only has no end');
  end[at]++;
  return end.subarray(0, at + 1);
}

function encodeHead(head: KeyedHead): Buffer {
  return Buffer.from(JSON.stringify({ generation: head.generation, op: head.op }));
}

function decodeHead(value: Buffer | undefined): KeyedHead | undefined {
  if (value === undefined) return undefined;
  const parsed = JSON.parse(value.toString('utf8')) as Partial<KeyedHead>;
  if (
    !Number.isSafeInteger(parsed.generation) ||
    (parsed.generation as number) < 1 ||
    !Number.isSafeInteger(parsed.op) ||
    (parsed.op as number) < 0
  ) {
    throw new Error('the keyed-state head record is unreadable');
  }
  return { generation: parsed.generation as number, op: parsed.op as number };
}

/**
 * The keyed-state sublevel of a data directory: records under a 4-byte
 * generation, and the head. Only snapshots write here (see
 * {@link KeyedCheckpoint}), in the snapshot's own synced batch, so the
 * records on disk are always exactly the state at the newest snapshot that
 * carried keyed state.
 */
export class KeyedRecords implements KeyedRecordReader {
  readonly #level: KeyedLevel;
  /** The sublevel's prefix in the root database: checkpoint batches go through the root. */
  readonly #prefix: Buffer;
  /**
   * Where reads build their key: the sublevel's prefix, the generation, the
   * record's key. Reused (a read is synchronous), and read through the root
   * database: the sublevel's own path concatenates the prefix and decodes
   * the value into a Buffer on every read, which is about a third of a read
   * that the cache missed.
   */
  readonly #readKey = Buffer.allocUnsafe(READ_KEY_BYTES);
  #readKeyGeneration = -1;
  #head: KeyedHead | undefined;
  /** Lowest generation that may still hold records on disk. */
  #oldestGeneration: number;

  private constructor(level: KeyedLevel, head: KeyedHead | undefined, oldest: number) {
    this.#level = level;
    this.#prefix = Buffer.from(level.prefixKey(Buffer.alloc(0), 'buffer', false));
    this.#head = head;
    this.#oldestGeneration = oldest;
  }

  static async open(level: KeyedLevel): Promise<KeyedRecords> {
    const head = decodeHead(await level.get(HEAD_KEY));
    const [first] = await level.keys({ gte: generationPrefix(1), limit: 1 }).all();
    const oldest = first === undefined ? (head?.generation ?? 1) : first.readUInt32BE(0);
    return new KeyedRecords(level, head, oldest);
  }

  head(): KeyedHead | undefined {
    return this.#head;
  }

  get(generation: number, key: string): string | undefined {
    const head = this.#prefix.length + 4;
    if (generation !== this.#readKeyGeneration) {
      this.#prefix.copy(this.#readKey, 0);
      this.#readKey.writeUInt32BE(generation, this.#prefix.length);
      this.#readKeyGeneration = generation;
    }
    // A UTF-16 unit is at most 3 bytes of UTF-8: a key that may not fit gets a buffer of its own.
    const full =
      key.length * 3 <= READ_KEY_BYTES - head
        ? this.#readKey.subarray(0, head + this.#readKey.write(key, head, 'utf8'))
        : Buffer.concat([this.#readKey.subarray(0, head), Buffer.from(key, 'utf8')]);
    return this.#level.db.getSync<Buffer, string>(full, READ_OPTIONS);
  }

  async *records(generation: number, prefix?: Buffer): AsyncIterable<readonly [Buffer, Buffer]> {
    const start = Buffer.concat([generationPrefix(generation), prefix ?? Buffer.alloc(0)]);
    const iterator = this.#level.iterator(
      prefix === undefined || prefix.length === 0
        ? { gte: start, lt: generationPrefix(generation + 1) }
        : { gte: start, lt: prefixEnd(start) },
    );
    try {
      for (;;) {
        const rows = await iterator.nextv(1024);
        if (rows.length === 0) return;
        for (const [key, value] of rows) yield [key.subarray(4), value];
      }
    } finally {
      await iterator.close();
    }
  }

  /**
   * Adds `checkpoint`'s changes, its head (at `op`) and a copy of the
   * snapshot (`encodedSnapshot`, as the snapshot sublevel stores it) to
   * `batch`, a slice per event-loop turn. The caller writes the batch,
   * synced, with the snapshot of `op` in it.
   *
   * Why a copy: the records on disk are those of this snapshot only, so an
   * older snapshot cannot stand in for it; were it damaged, the boot would
   * have to replay from op 1 (or, on a compacted journal, could not boot).
   * The copy is checked by the same checksum.
   */
  async fill(
    batch: NativeChainedBatch,
    checkpoint: KeyedCheckpoint,
    op: number,
    encodedSnapshot: Buffer,
  ): Promise<void> {
    const prefix = Buffer.concat([this.#prefix, generationPrefix(checkpoint.generation)]);
    let inTurn = 0;
    for (let next = checkpoint.changes.next(); !next.done; next = checkpoint.changes.next()) {
      const [key, value] = next.value;
      const full = Buffer.concat([prefix, key]);
      if (value === undefined) batch._del(full);
      else batch._put(full, value);
      if (++inTurn === CHANGES_PER_TURN) {
        inTurn = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    batch._put(
      Buffer.concat([this.#prefix, HEAD_KEY]),
      encodeHead({ generation: checkpoint.generation, op }),
    );
    batch._put(Buffer.concat([this.#prefix, COPY_KEY]), encodedSnapshot);
  }

  /**
   * `records` (newest first, as the snapshot store lists them) with the
   * snapshot the records' head names replaced by its copy when it is an
   * error record and the copy verifies; `mended` is told of each such case.
   */
  async mendNewest(
    records: SnapshotRecord[],
    mended: (damaged: string) => void,
  ): Promise<SnapshotRecord[]> {
    const head = this.#head;
    if (head === undefined) return records;
    const index = records.findIndex((record) => record.op === head.op);
    if (index < 0 || !('error' in records[index])) return records;
    const copy = await this.#level.get(COPY_KEY);
    if (copy === undefined) return records;
    const decoded = decodeSnapshot(head.op, copy);
    if ('error' in decoded) return records;
    mended((records[index] as { error: string }).error);
    const out = [...records];
    out[index] = decoded;
    return out;
  }

  /** The batch `fill` added to is on disk: `head` is the records' new head. */
  written(head: KeyedHead): void {
    this.#head = head;
  }

  /**
   * Deletes the records of generations below the head's, once one was
   * written: what replays from op 1 left behind. Nothing when none may exist.
   */
  async deleteOldGenerations(): Promise<void> {
    const head = this.#head;
    if (head === undefined || this.#oldestGeneration >= head.generation) return;
    await this.#level.clear({
      gte: generationPrefix(Math.max(1, this.#oldestGeneration)),
      lt: generationPrefix(head.generation),
    });
    this.#oldestGeneration = head.generation;
  }
}
