import { type KeyedCheckpoint, type KeyedRecordReader } from '@once/journal/internal';
import { settingDefault } from '@once/settings';
import {
  type KeyedStateMarker,
  EMPTY_KEYED_MARKER,
  digestHex,
  isEmptyMarker,
} from './keyed-state-marker';
import { type CachedRecord, RecordCache } from './record-cache';
import { hashRecord } from './record-hash';
import { KeyedStateBehindError } from './keyed-state-behind.error';

/**
 * One record as the store holds it: its value (frozen; undefined until
 * first read), its JSON and its hash.
 */
type StoredRecord = CachedRecord;

/** A change waiting for the next snapshot: the new record, or null for a delete. */
type Change = StoredRecord | null;

/** Default bound of the read cache, in records: the `keyedCacheEntries` setting's. */
export const DEFAULT_KEYED_CACHE_ENTRIES = settingDefault('keyedCacheEntries');

/**
 * The keyed records of every keyed module state on one node: what
 * {@link KeyedMap}s read and write.
 *
 * Reads are synchronous: the changes made since the last snapshot, then
 * those being written with it, then a bounded cache of records read or
 * written before, then LevelDB (`getSync`). Writes made by apply are kept
 * here until the next snapshot writes them, together with the snapshot, in
 * one synced batch ({@link seal}); nothing else writes the records, so the
 * records on disk are always the state at the newest snapshot, and a boot
 * restores that snapshot and replays the journal after it.
 *
 * Invariants:
 * - the digest is the XOR of every live record's hash, updated by each write;
 * - `counts` holds, per map, the number of live records (maps with none left out);
 * - a record is read from disk only under the generation the disk's head names.
 */
export class KeyedStore {
  private generation: number;
  /** Highest generation used or found on disk: a reset takes the next. */
  private generationMax: number;
  private staged = new Map<string, Change>();
  private sealed: Map<string, Change> | undefined;
  private sealedGeneration = 0;
  /**
   * Clean records read or written recently; null: a record known to be
   * deleted on disk (one written as a delete).
   */
  private readonly cache: RecordCache;
  private digestA = 0;
  private digestB = 0;
  private readonly counts = new Map<string, number>();
  /** Keyed maps bound to this store: none, and snapshots carry no records (nor their copy). */
  private mapsBound = 0;

  /**
   * @param reader the data directory's keyed records; undefined: records
   *   live in memory only (a journal without keyed records, a unit test)
   * @param cacheEntriesMax clean records kept in memory at most
   * @param cacheBytesMax bytes of clean records kept in memory at most
   */
  constructor(
    private readonly reader: KeyedRecordReader | undefined,
    readonly cacheEntriesMax: number = DEFAULT_KEYED_CACHE_ENTRIES,
    readonly cacheBytesMax: number = settingDefault('keyedCacheBytes'),
  ) {
    this.cache = new RecordCache(cacheEntriesMax, cacheBytesMax);
    this.generationMax = reader?.head()?.generation ?? 0;
    this.generation = ++this.generationMax;
  }

  /**
   * Whether snapshots write records: the store reads a data directory, and
   * some keyed state uses it or some record is held or changed (the HTTP
   * key table's records are written without a keyed state). An application
   * without keyed state or HTTP keys writes its snapshots as before,
   * without a head or a copy; a snapshot whose marker names records always
   * writes them.
   */
  get persistent(): boolean {
    return (
      this.reader !== undefined &&
      (this.mapsBound > 0 || this.counts.size > 0 || this.staged.size > 0)
    );
  }

  /**
   * Whether some keyed state (a {@link KeyedMap}) reads and writes here: then
   * the client table's sessions are kept as records too (see
   * `session-records.ts`). Fixed by the code's states, so a replay decides
   * as the live node did; HTTP keys alone do not count (an application
   * without keyed state writes its snapshots as before once its keys are
   * forgotten).
   */
  get hasKeyedStates(): boolean {
    return this.mapsBound > 0;
  }

  /** A keyed map now reads and writes here. @internal */
  noteMapBound(): void {
    this.mapsBound++;
  }

  /** Changes made since the last snapshot took them. */
  get stagedCount(): number {
    return this.staged.size;
  }

  /** Records of `map` (`state/map`). */
  count(map: string): number {
    return this.counts.get(map) ?? 0;
  }

  /** The value of `key` in `map`, or undefined. */
  get(map: string, key: string): unknown {
    const record = this.read(recordKey(map, key));
    if (record === undefined) return undefined;
    if (record.value === undefined) record.value = deepFreeze(JSON.parse(record.json));
    return record.value;
  }

  /** Writes `value` (JSON; stored as its JSON's copy, frozen), or deletes with undefined. */
  set(map: string, key: string, value: unknown): void {
    if (value === undefined) {
      this.write(map, key, undefined);
      return;
    }
    const json = JSON.stringify(value);
    if (json === undefined) {
      throw new TypeError(`the value of "${key}" in ${map} is not JSON`);
    }
    // The stored value is a frozen parse of the JSON, made on first read.
    this.write(map, key, json);
  }

  /**
   * Writes a record given as its JSON text (undefined: deletes it): for
   * records the engine encodes itself (the sessions), which need no second
   * stringify. `knownAbsent`: the caller knows the record does not exist
   * (it never wrote it, or deleted it), so nothing is read to replace it: a
   * new session costs no LevelDB lookup.
   */
  setJson(map: string, key: string, json: string | undefined, knownAbsent = false): void {
    this.write(map, key, json, knownAbsent);
  }

  /**
   * The records of `map` on disk, as the head's generation holds them, in
   * key order: keys and JSON texts. For a boot that rebuilds something kept
   * whole in memory from them (the client table); nothing when there is no
   * head. Changes not yet written are not seen.
   */
  async *recordsOnDisk(map: string): AsyncIterable<readonly [key: string, json: string]> {
    const head = this.reader?.head();
    if (this.reader === undefined || head === undefined) return;
    const prefix = Buffer.from(recordKey(map, ''), 'utf8');
    for await (const [key, value] of this.reader.records(head.generation, prefix)) {
      yield [key.subarray(prefix.length).toString('utf8'), value.toString('utf8')];
    }
  }

  private write(map: string, key: string, json: string | undefined, knownAbsent = false): void {
    const full = recordKey(map, key);
    const old = knownAbsent ? undefined : this.read(full);
    let change: Change = null;
    if (json !== undefined) {
      if (old !== undefined && old.json === json) return;
      const [hashA, hashB] = hashRecord(full, json);
      change = { value: undefined, json, hashA, hashB };
      this.digestA ^= hashA;
      this.digestB ^= hashB;
    } else if (old === undefined) {
      return;
    }
    if (old !== undefined) {
      this.digestA ^= old.hashA;
      this.digestB ^= old.hashB;
    }
    const delta = (change === null ? -1 : 0) + (old === undefined ? 1 : 0);
    if (delta !== 0) {
      const now = this.count(map) + delta;
      if (now === 0) this.counts.delete(map);
      else this.counts.set(map, now);
    }
    // In memory only, the changes are the records: a delete leaves nothing behind
    // (millions of forgotten HTTP keys would otherwise stay as tombstones).
    if (change === null && this.reader === undefined) this.staged.delete(full);
    else this.staged.set(full, change);
  }

  /** The digest and counts a snapshot records of the records now. */
  marker(): KeyedStateMarker {
    if (this.counts.size === 0 && this.digestA === 0 && this.digestB === 0) {
      return EMPTY_KEYED_MARKER;
    }
    return {
      digest: digestHex(this.digestA, this.digestB),
      counts: [...this.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    };
  }

  /**
   * Hands the changes made so far to a snapshot's write; reads keep seeing
   * them until {@link sealedWritten} or {@link sealedFailed}. One at a time.
   */
  seal(): KeyedCheckpoint {
    if (this.sealed !== undefined)
      throw new Error('invariant broken: a keyed checkpoint is already being written');
    const sealed = this.staged;
    this.sealed = sealed;
    this.sealedGeneration = this.generation;
    this.staged = new Map();
    return { generation: this.generation, changes: encodedChanges(sealed) };
  }

  /**
   * The sealed changes are on disk: the cache takes them, deletes included
   * (known absent); a snapshot's hundreds of thousands empty it instead
   * (`RecordCache.adopt`).
   */
  sealedWritten(): void {
    const sealed = this.sealed;
    this.sealed = undefined;
    if (sealed === undefined || this.sealedGeneration !== this.generation) return;
    this.cache.adopt(sealed);
  }

  /** The sealed changes were not written: they wait for the next snapshot, under newer ones. */
  sealedFailed(): void {
    const sealed = this.sealed;
    this.sealed = undefined;
    if (sealed === undefined || this.sealedGeneration !== this.generation) return;
    for (const [full, change] of this.staged) sealed.set(full, change);
    this.staged = sealed;
  }

  /**
   * Takes the records as a snapshot at `op` describes them. They are on disk
   * when the disk's head names that op; a snapshot without records needs
   * none. Otherwise the snapshot is older than the records on disk (or they
   * were lost), and it cannot be restored: {@link KeyedStateBehindError}.
   */
  restore(op: number, marker: KeyedStateMarker | undefined): void {
    this.forgetAll();
    if (isEmptyMarker(marker)) {
      this.generation = ++this.generationMax;
      return;
    }
    const head = this.reader?.head();
    if (head === undefined || head.op !== op) {
      throw new KeyedStateBehindError(op, head?.op);
    }
    this.generation = head.generation;
    this.digestA = Number.parseInt(marker!.digest.slice(0, 8), 16);
    this.digestB = Number.parseInt(marker!.digest.slice(8), 16);
    for (const [map, records] of marker!.counts) this.counts.set(map, records);
  }

  /** Empty, under a new generation (nothing on disk is read any more): a replay from op 1 starts here. */
  resetToGenesis(): void {
    this.forgetAll();
    this.generation = ++this.generationMax;
  }

  private forgetAll(): void {
    this.staged = new Map();
    this.cache.clear();
    this.counts.clear();
    this.digestA = 0;
    this.digestB = 0;
  }

  private read(full: string): StoredRecord | undefined {
    const staged = this.staged.get(full);
    if (staged !== undefined) return staged ?? undefined;
    if (this.sealed !== undefined && this.sealedGeneration === this.generation) {
      const sealed = this.sealed.get(full);
      if (sealed !== undefined) return sealed ?? undefined;
    }
    const cached = this.cache.get(full);
    if (cached !== undefined) return cached ?? undefined;
    const reader = this.reader;
    if (reader === undefined || reader.head()?.generation !== this.generation) return undefined;
    const json = reader.get(this.generation, full);
    if (json === undefined) {
      // Known absent: the write that usually follows a miss (a new account, a
      // new Idempotency-Key) does not read LevelDB a second time.
      this.cache.set(full, null);
      return undefined;
    }
    const [hashA, hashB] = hashRecord(full, json);
    // Parsed on first get: a write reads the old record for its hash only.
    const record: StoredRecord = { value: undefined, json, hashA, hashB };
    this.cache.set(full, record);
    return record;
  }
}

/** A record's key in the store: its map, a NUL, its key (a map name holds no NUL). */
function recordKey(map: string, key: string): string {
  return `${map}\u0000${key}`;
}

function* encodedChanges(
  changes: Map<string, Change>,
): Generator<readonly [Buffer, Buffer | undefined]> {
  for (const [full, change] of changes) {
    yield [
      Buffer.from(full, 'utf8'),
      change === null ? undefined : Buffer.from(change.json, 'utf8'),
    ];
  }
}

/** Freezes a JSON value all the way down: a handler that changes a read value in place throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
