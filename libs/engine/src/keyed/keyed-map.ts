import { KeyedStore } from './keyed-store';

/**
 * Where a keyed map's records live: the node's {@link KeyedStore} once the
 * engine registered the map's state, a private in-memory one before (a state
 * built by hand, as a unit test does).
 */
interface Binding {
  store: KeyedStore;
  /** `state/map`: the map's name in the store. */
  name: string;
  bound: boolean;
}

/**
 * A map of string keys to JSON values whose records live in the node's
 * LevelDB, not in memory: the state API for keyed state of any size (the
 * accounts of a ledger, the items of a catalogue). Declared in a
 * {@link KeyedState}; read and written by command handlers like a `Map`.
 *
 * Reads are synchronous (a bounded cache in front of LevelDB); writes are
 * persisted with the next snapshot, atomically with it. A value read is a
 * frozen copy of what was written (its JSON, parsed): change a record by
 * writing a new value, never in place.
 *
 * Not iterable: the records are not all in memory, and a walk over millions
 * of them has no place on the apply path. Keep an index map (or a
 * whole-object {@link ModuleState}) for what a handler must list.
 */
export class KeyedMap<V> {
  private readonly binding: Binding;

  /** @param name the map's name within its state: letters, digits, `-`, `_`, `.` */
  constructor(readonly name: string) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      throw new TypeError(`a keyed map's name is letters, digits, "-", "_" and "."; got "${name}"`);
    }
    this.binding = { store: new KeyedStore(undefined), name, bound: false };
  }

  /** The value of `key`, or undefined. */
  get(key: string): V | undefined {
    return this.binding.store.get(this.binding.name, checkedKey(key)) as V | undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Writes `value` (JSON-serialisable; `undefined` deletes). */
  set(key: string, value: V): this {
    this.binding.store.set(this.binding.name, checkedKey(key), value);
    return this;
  }

  /** Deletes `key`; whether it was there. */
  delete(key: string): boolean {
    const had = this.has(key);
    if (had) this.binding.store.set(this.binding.name, key, undefined);
    return had;
  }

  /** Records in the map. */
  get size(): number {
    return this.binding.store.count(this.binding.name);
  }

  /**
   * Moves the map into `store` under `state`. Called by the engine when it
   * registers the state (again, for a new engine over the same provider: the
   * new engine's store wins). A map written to before it was first
   * registered is refused, since what it held would not be part of the
   * node's state.
   * @internal
   */
  bindTo(store: KeyedStore, state: string): void {
    if (!this.binding.bound && this.binding.store.count(this.binding.name) > 0) {
      throw new Error(
        `the keyed map "${this.name}" of state "${state}" was written before its state was registered`,
      );
    }
    this.binding.store = store;
    this.binding.name = `${state}/${this.name}`;
    store.noteMapBound();
    this.binding.bound = true;
  }
}

/** A set of strings kept like a {@link KeyedMap} (each member a record). */
export class KeyedSet {
  private readonly map: KeyedMap<true>;

  constructor(readonly name: string) {
    this.map = new KeyedMap<true>(name);
  }

  has(member: string): boolean {
    return this.map.has(member);
  }

  add(member: string): this {
    this.map.set(member, true);
    return this;
  }

  delete(member: string): boolean {
    return this.map.delete(member);
  }

  get size(): number {
    return this.map.size;
  }

  /** @internal see {@link KeyedMap.bindTo} */
  bindTo(store: KeyedStore, state: string): void {
    this.map.bindTo(store, state);
  }
}

function checkedKey(key: string): string {
  if (typeof key !== 'string') {
    throw new TypeError(`a keyed map's key is a string; got ${typeof key}`);
  }
  return key;
}
