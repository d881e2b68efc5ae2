import { type ModuleState } from '../module-state';
import { KeyedMap, KeyedSet } from './keyed-map';
import { type KeyedStore } from './keyed-store';

const KEYED_STATE = Symbol.for('once.keyedState');

/**
 * A module state whose contents are keyed records in the node's LevelDB
 * ({@link KeyedMap}, {@link KeyedSet}), for state too large to copy whole:
 * a snapshot writes only the records changed since the previous one, in the
 * background, and a boot reads none of them (they are read when used).
 *
 * Declare the maps as fields, through {@link map} and {@link set}:
 *
 * ```ts
 * @ReplicatedState('ledger')
 * export class LedgerState extends KeyedState {
 *   readonly accounts = this.map<number>('accounts');
 *   readonly references = this.set('references');
 * }
 * ```
 *
 * The whole-object {@link ModuleState} stays the right choice for small
 * state a handler lists or walks (a few thousand entries): it is simpler and
 * is held in memory.
 */
export abstract class KeyedState implements ModuleState {
  readonly [KEYED_STATE] = true;
  private readonly maps: Array<KeyedMap<unknown> | KeyedSet> = [];

  /** Declares a keyed map of this state. */
  protected map<V>(name: string): KeyedMap<V> {
    const map = new KeyedMap<V>(name);
    this.declare(map);
    return map;
  }

  /** Declares a keyed set of this state. */
  protected set(name: string): KeyedSet {
    const set = new KeyedSet(name);
    this.declare(set);
    return set;
  }

  /** The records are not in the picture: they are in the keyed sublevel, written with it. */
  toSnapshot(): unknown {
    return null;
  }

  /**
   * A picture of this state as a snapshot holds it: `null` (its records are
   * on disk), or one written by a whole-object version of this state's code
   * (a state moved to keyed records), which {@link importSnapshot} writes as
   * records.
   */
  fromSnapshot(snapshot: unknown, version: number): void {
    if (snapshot === null || snapshot === undefined) return;
    this.importSnapshot(snapshot, version);
  }

  /**
   * Writes the records of a picture a whole-object version of this state
   * wrote (see {@link fromSnapshot}). Default: refused, since such a picture
   * can only come from code this state never was.
   */
  protected importSnapshot(snapshot: unknown, version: number): void {
    void snapshot;
    throw new Error(
      `this keyed state cannot read a whole-object snapshot (its version ${version}); override importSnapshot to move it to keyed records`,
    );
  }

  /** @internal called by the engine when it registers the state under `name` */
  bindKeyedStore(store: KeyedStore, name: string): void {
    for (const map of this.maps) map.bindTo(store, name);
  }

  private declare(map: KeyedMap<unknown> | KeyedSet): void {
    if (this.maps.some((known) => known.name === map.name)) {
      throw new Error(`two keyed maps of one state are named "${map.name}"`);
    }
    this.maps.push(map);
  }
}

/** Whether `state` keeps keyed records (across copies of this package). */
export function isKeyedState(state: ModuleState): state is KeyedState {
  return (state as Partial<Record<typeof KEYED_STATE, boolean>>)[KEYED_STATE] === true;
}
