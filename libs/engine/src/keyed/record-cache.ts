import { FNV_OFFSET_BASIS, FNV_PRIME } from './record-hash';

/**
 * One keyed record as the store reads it: its JSON, the two lanes of its
 * digest hash, and its value, parsed (frozen) on first use.
 */
export interface CachedRecord {
  /** The parsed value, frozen; undefined until first read. */
  value: unknown;
  readonly json: string;
  readonly hashA: number;
  readonly hashB: number;
}

/**
 * Entries of the largest map {@link RecordCache.adopt} adds one by one: about
 * a millisecond of insertions. A larger one empties the cache instead.
 */
const ADOPT_BY_ENTRY_MAX = 16_384;

/**
 * Most slots the table is given when the first record comes in (2^21: the
 * default bound's full table); a larger bound's table doubles from there.
 */
const INITIAL_SLOTS_MAX = 2 ** 21;
/** Every entry starts on a multiple of this (so its header reads as 32-bit words). */
const ALIGN_BYTES = 8;
/**
 * An entry's header, six 32-bit words: its size in bytes (header and
 * padding included), its key's UTF-8 bytes with its kind above them, its
 * value's UTF-8 bytes, its key's table hash, and its record's two hash lanes.
 */
const HEADER_BYTES = 24;
const WORD_SIZE = 0;
const WORD_KEY_BYTES_KIND = 1;
const WORD_VALUE_BYTES = 2;
const WORD_KEY_HASH = 3;
const WORD_HASH_A = 4;
const WORD_HASH_B = 5;
/** Kinds of entry: the unused end of the arena, a record, a record known to be absent. */
const KIND_PAD = 0;
const KIND_RECORD = 1;
const KIND_ABSENT = 2;
/** Longest key kept, in UTF-8 bytes (its length has 16 bits in the header). */
const KEY_BYTES_MAX = 0xffff;
/** An entry takes at most this share of the arena's bound: a larger record is read from LevelDB each time. */
const ENTRY_SHARE_OF_ARENA = 16;
/**
 * Entries one reclaim (one record's room) may move to the head for their
 * second chance; past it, the tail's entries go used or not. Unbounded, a
 * ring whose every entry was used again (a fill, where each record is read
 * absent and then written) was swept whole by one insertion: 250 ms for a
 * million entries.
 */
const SECOND_CHANCES_PER_RECLAIM_MAX = 8;
/** The smallest arena bound that keeps anything. */
const ARENA_BYTES_MIN = 4096;

/**
 * A bounded cache of clean keyed records, kept off the JavaScript heap: the
 * records' bytes live in one arena of `bytesMax` bytes (a `Buffer` used as a
 * ring, written at its head, reclaimed at its tail), found through an
 * open-addressing hash table of typed arrays (linear probing, deletion by
 * backward shift) of at most `entriesMax` records. Both are allocated when
 * the first record comes in (see {@link allocate}).
 *
 * Why off the heap: a cache of hundreds of thousands of records as
 * JavaScript objects (a key string, a record object, its JSON text) is
 * millions of objects for the garbage collector to mark, and when the state
 * is larger than the cache every miss turns some of them into old-space
 * garbage. On the bench machine a 1M-account ledger's major collections
 * then took up to 154 ms, mostly the main thread waiting for the
 * collector's helper threads. Here the whole cache is two typed arrays and a
 * buffer: nothing for the collector to walk; a read allocates only the
 * record it returns, which dies young.
 *
 * Eviction is FIFO with a second chance (as CLOCK): when the arena needs
 * room, the entry at its tail is dropped unless it was used since it came
 * in, in which case it moves to the head and loses its mark; at most 8 move
 * for one record's room, so no insertion sweeps the ring. A record written again takes its older
 * entry's place when it is as large (a balance of as many digits, a record
 * known absent becoming one of a few bytes); otherwise it is appended anew,
 * and the older entry is dead space until the tail passes it.
 *
 * Memory: the arena (`bytesMax`) and 9 bytes per slot, two slots per
 * entry of `entriesMax` rounded up to a power of two. An entry takes 24 bytes of header, its
 * key and its JSON (UTF-8), rounded up to 8: a ledger account of the bench
 * (`ledger/accounts`, a NUL, `acct-0000123`, a balance) takes 56.
 *
 * Invariants: `count` slots hold a reference, at most `entriesMax` and at
 * most half the slots; every key sits at or after its home slot
 * (`hashes[slot] & mask`) with no empty slot in between; a slot's
 * reference names an entry between the arena's tail and head whose key is
 * the slot's; `filled` is the bytes from tail to head, dead entries and
 * padding included.
 */
export class RecordCache {
  /** Per slot: the entry's offset in the arena in units of 8 bytes, plus 1 (0: an empty slot). */
  private refs: Int32Array;
  /** Per slot: the key's table hash. */
  private hashes: Int32Array;
  /** Per slot: 1 when used since it came in or was last given its second chance. */
  private used: Uint8Array;
  private mask = 0;
  /** Slots of the full table: twice the bound, rounded up to a power of two. */
  private readonly slotsMax: number;
  private count = 0;
  private arena: Buffer;
  /** The arena's headers, as 32-bit words (an entry at byte `at` has its header at word `at / 4`). */
  private words: Int32Array;
  /** The arena's bound, rounded down to a multiple of 8. */
  private readonly arenaBytesMax: number;
  private readonly entryBytesMax: number;
  private head = 0;
  private tail = 0;
  private filled = 0;

  /**
   * @param entriesMax records kept at most (0: none)
   * @param bytesMax bytes of records kept at most (below 4 KiB: none)
   */
  constructor(
    readonly entriesMax: number,
    readonly bytesMax: number,
  ) {
    if (!Number.isSafeInteger(entriesMax) || entriesMax < 0) {
      throw new RangeError(`keyed cache entries must be an integer >= 0: ${entriesMax}`);
    }
    if (!Number.isSafeInteger(bytesMax) || bytesMax < 0) {
      throw new RangeError(`keyed cache bytes must be an integer >= 0: ${bytesMax}`);
    }
    this.arenaBytesMax = bytesMax - (bytesMax % ALIGN_BYTES);
    this.entryBytesMax =
      entriesMax > 0 && bytesMax >= ARENA_BYTES_MIN
        ? Math.floor(this.arenaBytesMax / ENTRY_SHARE_OF_ARENA)
        : 0;
    this.slotsMax = 2 ** Math.ceil(Math.log2(Math.max(2, entriesMax * 2)));
    // One empty slot and no arena until something is kept: a process without keyed records allocates nothing.
    this.refs = new Int32Array(1);
    this.hashes = new Int32Array(1);
    this.used = new Uint8Array(1);
    this.arena = Buffer.alloc(0);
    this.words = new Int32Array(0);
  }

  /** The record under `key`: null when it is known to be absent, undefined when not held. */
  get(key: string): CachedRecord | null | undefined {
    const slot = this.slotOf(key, hashOf(key));
    if (slot < 0) return undefined;
    this.used[slot] = 1;
    const at = (this.refs[slot] - 1) * ALIGN_BYTES;
    const words = this.words;
    const word = at >> 2;
    const keyBytesKind = words[word + WORD_KEY_BYTES_KIND];
    if (keyBytesKind >>> 16 === KIND_ABSENT) return null;
    const start = at + HEADER_BYTES + (keyBytesKind & KEY_BYTES_MAX);
    return {
      value: undefined,
      json: this.arena.toString('utf8', start, start + words[word + WORD_VALUE_BYTES]),
      hashA: words[word + WORD_HASH_A],
      hashB: words[word + WORD_HASH_B],
    };
  }

  /**
   * Keeps `record` under `key` (null: the record is known to be absent).
   * A record too large for the cache is not kept, and an older one under
   * the same key is forgotten.
   */
  set(key: string, record: CachedRecord | null): void {
    if (this.entryBytesMax === 0) return;
    const hash = hashOf(key);
    const keyBytes = Buffer.byteLength(key, 'utf8');
    const valueBytes = record === null ? 0 : Buffer.byteLength(record.json, 'utf8');
    const size = alignUp(HEADER_BYTES + keyBytes + valueBytes);
    if (size > this.entryBytesMax || keyBytes > KEY_BYTES_MAX) {
      this.delete(key);
      return;
    }
    if (this.arena.length === 0) this.allocate();
    const held = this.slotOf(key, hash);
    if (held >= 0) {
      const at = (this.refs[held] - 1) * ALIGN_BYTES;
      if (this.words[(at >> 2) + WORD_SIZE] === size) {
        // As large as the entry it replaces (a balance of as many digits): written in its place.
        this.writeEntry(at, size, key, keyBytes, hash, record, valueBytes);
        this.used[held] = 1;
        return;
      }
    } else if (this.count >= this.entriesMax) {
      this.evictOne();
    } else if (this.count + 1 > (this.mask + 1) / 2) {
      // At most half full, so probes stay short and an empty slot ends every cluster.
      this.growTable();
    }
    // Making room only removes entries: the count says whether it did.
    const countBefore = this.count;
    const at = this.claim(size);
    this.writeEntry(at, size, key, keyBytes, hash, record, valueBytes);
    // Found again only if a removal may have moved the key's slot or evicted it.
    let slot = this.count === countBefore ? held : this.slotOf(key, hash);
    if (slot >= 0) {
      this.used[slot] = 1;
    } else {
      slot = this.freeSlotFor(hash);
      this.hashes[slot] = hash;
      // A new entry earns its second chance by a use: one read once goes first.
      this.used[slot] = 0;
      this.count++;
    }
    this.refs[slot] = at / ALIGN_BYTES + 1;
  }

  private writeEntry(
    at: number,
    size: number,
    key: string,
    keyBytes: number,
    hash: number,
    record: CachedRecord | null,
    valueBytes: number,
  ): void {
    const word = at >> 2;
    const words = this.words;
    words[word + WORD_SIZE] = size;
    words[word + WORD_KEY_BYTES_KIND] =
      keyBytes | ((record === null ? KIND_ABSENT : KIND_RECORD) << 16);
    words[word + WORD_VALUE_BYTES] = valueBytes;
    words[word + WORD_KEY_HASH] = hash;
    words[word + WORD_HASH_A] = record === null ? 0 : record.hashA;
    words[word + WORD_HASH_B] = record === null ? 0 : record.hashB;
    this.arena.write(key, at + HEADER_BYTES, keyBytes, 'utf8');
    if (record !== null) {
      this.arena.write(record.json, at + HEADER_BYTES + keyBytes, valueBytes, 'utf8');
    }
  }

  /**
   * Takes `entries` (records just written) into the cache. A small map (a
   * checkpoint's, every few hundred milliseconds) is added entry by entry. A
   * large one (a snapshot's hundreds of thousands of changes, with
   * checkpoints off) empties the cache instead: no walk over it on the main
   * thread, and no entry left older than what was written; the records are
   * read again from disk when asked for.
   */
  adopt(entries: Map<string, CachedRecord | null>): void {
    if (this.entryBytesMax === 0) return;
    if (entries.size > ADOPT_BY_ENTRY_MAX) {
      this.clear();
      return;
    }
    for (const [key, record] of entries) this.set(key, record);
  }

  delete(key: string): void {
    const slot = this.slotOf(key, hashOf(key));
    if (slot >= 0) this.removeAt(slot);
  }

  clear(): void {
    this.refs.fill(0);
    this.used.fill(0);
    this.count = 0;
    this.head = 0;
    this.tail = 0;
    this.filled = 0;
  }

  /** Entries held now. */
  get size(): number {
    return this.count;
  }

  /** Bytes of the arena now (it never shrinks). */
  get arenaBytes(): number {
    return this.arena.length;
  }

  /** The slot holding `key`, or -1. */
  private slotOf(key: string, hash: number): number {
    const refs = this.refs;
    const hashes = this.hashes;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const ref = refs[slot];
      if (ref === 0) return -1;
      if (hashes[slot] === hash && this.keyIs(ref, key)) return slot;
    }
  }

  /** Whether the entry `ref` names has `key`. */
  private keyIs(ref: number, key: string): boolean {
    const at = (ref - 1) * ALIGN_BYTES;
    const keyBytes = this.words[(at >> 2) + WORD_KEY_BYTES_KIND] & KEY_BYTES_MAX;
    const start = at + HEADER_BYTES;
    // UTF-8 never has fewer bytes than UTF-16 has units; equal counts mean ASCII, compared in place.
    if (keyBytes < key.length) return false;
    if (keyBytes === key.length) {
      const arena = this.arena;
      for (let i = 0; i < keyBytes; i++) {
        const unit = key.charCodeAt(i);
        if (unit >= 0x80) break;
        if (arena[start + i] !== unit) return false;
        if (i === keyBytes - 1) return true;
      }
    }
    return this.arena.toString('utf8', start, start + keyBytes) === key;
  }

  /** The slot referring to the entry at `ref` (whose key hashes to `hash`), or -1: a dead entry. */
  private slotOfRef(hash: number, ref: number): number {
    const refs = this.refs;
    const mask = this.mask;
    for (let slot = hash & mask; refs[slot] !== 0; slot = (slot + 1) & mask) {
      if (refs[slot] === ref) return slot;
    }
    return -1;
  }

  /** The first empty slot from `hash`'s home: there is one, the table being at most half full. */
  private freeSlotFor(hash: number): number {
    const refs = this.refs;
    const mask = this.mask;
    let slot = hash & mask;
    while (refs[slot] !== 0) slot = (slot + 1) & mask;
    return slot;
  }

  /**
   * Gives the cache its arena, whole, and its table, whole up to 2^21
   * slots, when the first record comes in: no copy of the arena ever, and
   * no rehash under the default bound. The memory is the operating system's
   * zeroed pages, resident only once written: the arena fills from its
   * start, so a small state keeps little of it.
   */
  private allocate(): void {
    this.arena = Buffer.alloc(this.arenaBytesMax);
    this.words = new Int32Array(this.arena.buffer, this.arena.byteOffset, this.arenaBytesMax / 4);
    const slots = Math.min(this.slotsMax, INITIAL_SLOTS_MAX);
    this.mask = slots - 1;
    this.refs = new Int32Array(slots);
    this.hashes = new Int32Array(slots);
    this.used = new Uint8Array(slots);
  }

  /**
   * Doubles the table (to at most {@link slotsMax}) and puts every entry
   * back: once per doubling in the process's life, and only for a bound
   * above the default's.
   */
  private growTable(): void {
    const { refs, hashes, used } = this;
    const slots = Math.min(this.slotsMax, (this.mask + 1) * 2);
    this.mask = slots - 1;
    this.refs = new Int32Array(slots);
    this.hashes = new Int32Array(slots);
    this.used = new Uint8Array(slots);
    for (let old = 0; old < refs.length; old++) {
      if (refs[old] === 0) continue;
      const slot = this.freeSlotFor(hashes[old]);
      this.refs[slot] = refs[old];
      this.hashes[slot] = hashes[old];
      this.used[slot] = used[old];
    }
  }

  /** Removes one live entry, oldest first (with second chances): the entry bound is reached. */
  private evictOne(): void {
    const count = this.count;
    let chances = SECOND_CHANCES_PER_RECLAIM_MAX;
    while (this.count === count) if (this.advanceTail(chances > 0)) chances--;
  }

  /**
   * Reserves `size` contiguous bytes at the head, and answers where,
   * reclaiming from the tail as needed. The free bytes are
   * `[head, end)` and `[0, tail)` while the ring does not wrap, `[head,
   * tail)` when it does.
   */
  private claim(size: number): number {
    let chances = SECOND_CHANCES_PER_RECLAIM_MAX;
    for (;;) {
      if (this.filled === 0) {
        this.head = 0;
        this.tail = 0;
      }
      const end = this.arena.length;
      const full = this.filled === end;
      if (!full && this.head >= this.tail) {
        if (end - this.head >= size) return this.take(size);
        if (this.tail >= size) {
          // The arena's end is too short: pad it, and go on from its start.
          this.writePad(this.head, end - this.head);
          this.filled += end - this.head;
          this.head = 0;
          return this.take(size);
        }
      } else if (!full && this.tail - this.head >= size) {
        return this.take(size);
      }
      if (this.advanceTail(chances > 0)) chances--;
    }
  }

  /** Takes `size` bytes at the head (there is room). */
  private take(size: number): number {
    const at = this.head;
    this.head = at + size === this.arena.length ? 0 : at + size;
    this.filled += size;
    return at;
  }

  /**
   * Moves the tail's entry (at `at`, of `size` bytes) to the head: there is
   * always room, the bytes it leaves being reclaimed as it goes. While the
   * ring wraps, the free bytes lie just before it, and it slides down over
   * them (overlapping copies are fine for `Buffer.copy`); otherwise it goes
   * to the end of the arena, or, when that is too short, to its start once
   * the end is padded.
   */
  private moveToHead(slot: number, at: number, size: number): void {
    if (this.head > at && this.arena.length - this.head < size) {
      this.writePad(this.head, this.arena.length - this.head);
      this.filled += this.arena.length - this.head;
      this.head = 0;
    }
    const to = this.take(size);
    if (to !== at) this.arena.copy(this.arena, to, at, at + size);
    this.refs[slot] = to / ALIGN_BYTES + 1;
    this.used[slot] = 0;
  }

  private writePad(at: number, size: number): void {
    this.words[(at >> 2) + WORD_SIZE] = size;
    this.words[(at >> 2) + WORD_KEY_BYTES_KIND] = KIND_PAD << 16;
  }

  /**
   * Reclaims the entry at the tail: padding and dead entries go; a live one
   * used since it came in moves to the head and loses its mark, when
   * `secondChance` allows; any other live one is evicted. Answers whether
   * an entry moved.
   */
  private advanceTail(secondChance: boolean): boolean {
    let moved = false;
    const at = this.tail;
    const word = at >> 2;
    const size = this.words[word + WORD_SIZE];
    if (size < ALIGN_BYTES) throw new Error(`invariant broken: an arena entry of ${size} bytes`);
    if (this.words[word + WORD_KEY_BYTES_KIND] >>> 16 !== KIND_PAD) {
      const slot = this.slotOfRef(this.words[word + WORD_KEY_HASH], at / ALIGN_BYTES + 1);
      if (slot >= 0) {
        if (secondChance && this.used[slot] === 1) {
          this.moveToHead(slot, at, size);
          moved = true;
        } else {
          this.removeAt(slot);
        }
      }
    }
    this.tail = at + size === this.arena.length ? 0 : at + size;
    this.filled -= size;
    return moved;
  }

  /** Empties `slot`, moving back each following key of its cluster that may sit there. */
  private removeAt(slot: number): void {
    const { refs, hashes, used, mask } = this;
    let hole = slot;
    for (let next = (slot + 1) & mask; refs[next] !== 0; next = (next + 1) & mask) {
      // The key at `next` may move to the hole when its home is not after the hole.
      const fromHome = (next - hashes[next]) & mask;
      const fromHole = (next - hole) & mask;
      if (fromHome >= fromHole) {
        refs[hole] = refs[next];
        hashes[hole] = hashes[next];
        used[hole] = used[next];
        hole = next;
      }
    }
    refs[hole] = 0;
    used[hole] = 0;
    this.count--;
  }
}

function alignUp(bytes: number): number {
  return Math.ceil(bytes / ALIGN_BYTES) * ALIGN_BYTES;
}

/** FNV-1a over the UTF-16 code units, with a final mix so the low bits spread. */
function hashOf(key: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), FNV_PRIME);
  return hash ^ (hash >>> 15);
}
