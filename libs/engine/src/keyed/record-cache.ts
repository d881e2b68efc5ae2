/**
 * Entries of the largest map {@link RecordCache.adopt} adds one by one: about
 * a millisecond of `Map.set`s.
 */
const ADOPT_BY_ENTRY_MAX = 16_384;

/**
 * A bounded cache of clean keyed records: two generations of at most half
 * the bound each. Entries go into the young one; when it is full it becomes
 * the old one and the previous old one is dropped whole; a hit in the old
 * one moves the entry back to the young one. What was used within the last
 * half-bound insertions stays, which is what a least-recently-used list
 * keeps too, near enough.
 *
 * Why not one `Map` in LRU order (delete and re-insert on a hit, evict its
 * first key): V8 leaves a deleted entry in place until the table is
 * rehashed, and a `Map`'s first key is found by walking past them, so with
 * the cache full every eviction walked the tombstones of the ones before it.
 * At a million records with a cache of 262,144 that held the main thread
 * for seconds; here nothing is ever deleted from the head.
 */
export class RecordCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private readonly generationMax: number;

  /** @param entriesMax records kept at most (0: none) */
  constructor(readonly entriesMax: number) {
    this.generationMax = Math.max(1, Math.ceil(entriesMax / 2));
  }

  get(key: string): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.entriesMax === 0) return;
    this.young.set(key, value);
    if (this.young.size >= this.generationMax) {
      // An adopted generation may hold more than half the bound: it is old after one insertion.
      this.old = this.young;
      this.young = new Map();
    }
  }

  /**
   * Takes `entries` (records just written) into the cache. The map is the
   * cache's from now on.
   *
   * A large one (a snapshot's hundreds of thousands of changes) becomes the
   * young generation whole, the current young one the old one: no walk over
   * it on the main thread. A small one (a checkpoint's, every
   * few hundred milliseconds) is added entry by entry: taken whole, each
   * would drop the old generation, and the cache would hold little more
   * than the last two checkpoints' records however large its bound.
   */
  adopt(entries: Map<string, V>): void {
    if (this.entriesMax === 0) return;
    if (entries.size <= ADOPT_BY_ENTRY_MAX) {
      for (const [key, value] of entries) this.set(key, value);
      return;
    }
    this.old = this.young;
    this.young = entries;
  }

  delete(key: string): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }

  /** Entries held now (the same key may be counted in both generations). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
