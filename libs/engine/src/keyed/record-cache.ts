import { FNV_OFFSET_BASIS, FNV_PRIME } from './record-hash';

/**
 * Entries of the largest map {@link RecordCache.adopt} adds one by one: about
 * a millisecond of insertions. A larger one empties the cache instead.
 */
const ADOPT_BY_ENTRY_MAX = 16_384;

/** Slots of the table when the first record comes in; it doubles from there. */
const INITIAL_SLOTS = 16;

/**
 * A bounded cache of clean keyed records: an open-addressing hash table
 * (linear probing, deletion by backward shift) that doubles as it fills, up
 * to twice its bound, and is evicted by CLOCK (a second chance for every
 * entry used again since it came in or since the hand last passed it), which
 * keeps what a least-recently-used list keeps, near enough.
 *
 * Why not `Map`s: a `Map` grows by rehashing its whole table on the main
 * thread, and this cache used to keep two generations of `Map`s that start
 * empty, so a large cache paid the rehashes again every time a generation
 * filled: measured on the bench machine, the step to 524,288 entries took
 * 36 ms and the step to 1,048,576 took 87 ms. Keeping generations small
 * instead made every miss look into each of them. This table doubles only
 * until it holds its bound, once per step in the process's life, and a
 * lookup probes one or two slots.
 *
 * Why not one `Map` in LRU order (delete and re-insert on a hit, evict its
 * first key): V8 leaves a deleted entry in place until the table is
 * rehashed, and a `Map`'s first key is found by walking past them; with the
 * cache full every eviction walked the tombstones of the ones before it.
 *
 * Memory: 21 bytes per slot, at most two slots per entry of bound (about
 * 11 MiB when 262,144 records fill it), besides the keys and values
 * themselves.
 *
 * Invariants: `count` slots hold a key, at most `entriesMax` and at most
 * half the slots; every key sits at or after its home slot
 * (`hashes[slot] & mask`) with no empty slot in between.
 */
export class RecordCache<V> {
  private keys: (string | undefined)[];
  private values: (V | undefined)[];
  private hashes: Int32Array;
  /** CLOCK's reference bits: 1 when used since the hand last passed. */
  private used: Uint8Array;
  private mask: number;
  /** Slots of the full table: twice the bound, rounded up to a power of two. */
  private readonly slotsMax: number;
  private hand = 0;
  private count = 0;

  /** @param entriesMax records kept at most (0: none) */
  constructor(readonly entriesMax: number) {
    this.slotsMax = 2 ** Math.ceil(Math.log2(Math.max(2, entriesMax * 2)));
    // One empty slot until something is kept: a process without keyed records allocates nothing.
    this.mask = 0;
    this.keys = [undefined];
    this.values = [undefined];
    this.hashes = new Int32Array(1);
    this.used = new Uint8Array(1);
  }

  get(key: string): V | undefined {
    const slot = this.slotOf(key, hashOf(key));
    if (slot < 0) return undefined;
    this.used[slot] = 1;
    return this.values[slot];
  }

  set(key: string, value: V): void {
    if (this.entriesMax === 0) return;
    const hash = hashOf(key);
    let slot = this.slotOf(key, hash);
    if (slot < 0) {
      if (this.count >= this.entriesMax) this.evictOne();
      // At most half full, so probes stay short and an empty slot ends every cluster.
      else if (this.count + 1 > (this.mask + 1) / 2) this.grow();
      slot = this.freeSlotFor(hash);
      this.keys[slot] = key;
      this.hashes[slot] = hash;
      this.values[slot] = value;
      // A new entry earns its second chance by a use: one read once goes first.
      this.used[slot] = 0;
      this.count++;
      return;
    }
    this.values[slot] = value;
    this.used[slot] = 1;
  }

  /**
   * Takes `entries` (records just written) into the cache. A small map (a
   * checkpoint's, every few hundred milliseconds) is added entry by entry. A
   * large one (a snapshot's hundreds of thousands of changes, with
   * checkpoints off) empties the cache instead: no walk over it on the main
   * thread, and no entry left older than what was written; the records are
   * read again from disk when asked for.
   */
  adopt(entries: Map<string, V>): void {
    if (this.entriesMax === 0) return;
    if (entries.size > ADOPT_BY_ENTRY_MAX) {
      this.clear();
      return;
    }
    for (const [key, value] of entries) this.set(key, value);
  }

  delete(key: string): void {
    const slot = this.slotOf(key, hashOf(key));
    if (slot >= 0) this.removeAt(slot);
  }

  clear(): void {
    if (this.count === 0) return;
    this.keys.fill(undefined);
    this.values.fill(undefined);
    this.used.fill(0);
    this.count = 0;
  }

  /** Entries held now. */
  get size(): number {
    return this.count;
  }

  /**
   * Doubles the table (to at most {@link slotsMax}) and puts every entry
   * back: once per doubling in the process's life, the largest moving half
   * the bound's entries.
   */
  private grow(): void {
    const { keys, values, hashes, used } = this;
    const slots = Math.min(this.slotsMax, Math.max(INITIAL_SLOTS, (this.mask + 1) * 2));
    this.mask = slots - 1;
    this.keys = packedArray(slots);
    this.values = packedArray(slots);
    this.hashes = new Int32Array(slots);
    this.used = new Uint8Array(slots);
    this.hand = 0;
    for (let old = 0; old < keys.length; old++) {
      if (keys[old] === undefined) continue;
      const slot = this.freeSlotFor(hashes[old]);
      this.keys[slot] = keys[old];
      this.values[slot] = values[old];
      this.hashes[slot] = hashes[old];
      this.used[slot] = used[old];
    }
  }

  /** The slot holding `key`, or -1. */
  private slotOf(key: string, hash: number): number {
    const keys = this.keys;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = keys[slot];
      if (held === undefined) return -1;
      if (held === key) return slot;
    }
  }

  /** The first empty slot from `hash`'s home: there is one, the table being at most half full. */
  private freeSlotFor(hash: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let slot = hash & mask;
    while (keys[slot] !== undefined) slot = (slot + 1) & mask;
    return slot;
  }

  /** CLOCK: the hand clears reference bits until it finds an entry unused since its last pass. */
  private evictOne(): void {
    const keys = this.keys;
    const used = this.used;
    const mask = this.mask;
    for (;;) {
      const slot = this.hand;
      this.hand = (slot + 1) & mask;
      if (keys[slot] === undefined) continue;
      if (used[slot] === 1) {
        used[slot] = 0;
        continue;
      }
      this.removeAt(slot);
      return;
    }
  }

  /** Empties `slot`, moving back each following key of its cluster that may sit there. */
  private removeAt(slot: number): void {
    const { keys, values, hashes, used, mask } = this;
    let hole = slot;
    for (let next = (slot + 1) & mask; keys[next] !== undefined; next = (next + 1) & mask) {
      // The key at `next` may move to the hole when its home is not after the hole.
      const fromHome = (next - hashes[next]) & mask;
      const fromHole = (next - hole) & mask;
      if (fromHome >= fromHole) {
        keys[hole] = keys[next];
        values[hole] = values[next];
        hashes[hole] = hashes[next];
        used[hole] = used[next];
        hole = next;
      }
    }
    keys[hole] = undefined;
    values[hole] = undefined;
    used[hole] = 0;
    this.count--;
  }
}

/** FNV-1a over the UTF-16 code units, with a final mix so the low bits spread. */
function hashOf(key: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), FNV_PRIME);
  return hash ^ (hash >>> 15);
}

/** An array of `length` undefined slots, in V8's fast (not dictionary) form. */
function packedArray<T>(length: number): T[] {
  return new Array<T>(length).fill(undefined as T);
}
