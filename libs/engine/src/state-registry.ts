import { type ClientId } from '@once/protocol';
import { type ApplyContext } from './apply-context';
import { type ConnectionScopedState, type ModuleState, isConnectionScoped } from './module-state';

/** Raised at startup when two states claim the same name. */
export class DuplicateStateError extends Error {
  readonly code = 'DUPLICATE_STATE';
  constructor(readonly stateName: string) {
    super(`two replicated states are named "${stateName}"`);
  }
}

/** Raised when a snapshot names a state this node does not have, or misses one. */
export class StateMismatchError extends Error {
  readonly code = 'STATE_MISMATCH';
}

/**
 * Named module states, kept in name order so that snapshots list them in the
 * same order on every node and every run.
 */
export class StateRegistry {
  private readonly states = new Map<string, ModuleState>();
  private scoped: ConnectionScopedState[] = [];

  constructor(states: Iterable<[string, ModuleState]> = []) {
    for (const [name, state] of states) this.register(name, state);
  }

  register(name: string, state: ModuleState): void {
    if (this.states.has(name)) throw new DuplicateStateError(name);
    this.states.set(name, state);
    const ordered = [...this.states.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.states.clear();
    for (const [key, value] of ordered) this.states.set(key, value);
    this.scoped = [...this.states.values()].filter(isConnectionScoped);
  }

  get names(): string[] {
    return [...this.states.keys()];
  }

  get(name: string): ModuleState | undefined {
    return this.states.get(name);
  }

  /** Name → JSON text, in name order. */
  snapshot(): Array<[string, string]> {
    return [...this.states.entries()].map(([name, state]) => [
      name,
      JSON.stringify(state.toSnapshot()) ?? 'null',
    ]);
  }

  restore(snapshot: Array<[string, string]>): void {
    const given = new Map(snapshot);
    for (const name of given.keys()) {
      if (!this.states.has(name)) {
        throw new StateMismatchError(`snapshot holds state "${name}" that no module provides`);
      }
    }
    for (const [name, state] of this.states) {
      const json = given.get(name);
      if (json === undefined) {
        throw new StateMismatchError(`snapshot has no state "${name}"`);
      }
      state.fromSnapshot(JSON.parse(json));
    }
  }

  /** Drop what `client` held only while connected, in every state that holds such things. */
  releaseClient(client: ClientId, ctx: ApplyContext): void {
    for (const state of this.scoped) state.releaseClient(client, ctx);
  }

  /** Every client holding connection-scoped things, deduplicated, sorted. */
  holders(): ClientId[] {
    const all = new Set<ClientId>();
    for (const state of this.scoped) for (const client of state.holders()) all.add(client);
    return [...all].sort();
  }
}
