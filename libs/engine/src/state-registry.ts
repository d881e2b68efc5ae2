import { type ClientId } from '@once/protocol';
import { type ApplyContext } from './apply-context';
import { FIRST_VERSION, isStateVersion } from './code-manifest';
import { type KeyedStore, isKeyedState } from './keyed';
import { type ConnectionScopedState, type ModuleState, isConnectionScoped } from './module-state';
import { StateNotProvidedError } from './state-not-provided.error';

/** Raised at startup when two states claim the same name. */
export class DuplicateStateError extends Error {
  readonly code = 'DUPLICATE_STATE';
  constructor(readonly stateName: string) {
    super(`two replicated states are named "${stateName}"`);
  }
}

/** Raised at startup for a state declared with a version that is not a whole number from 1. */
export class InvalidStateVersionError extends Error {
  readonly code = 'INVALID_STATE_VERSION';
  constructor(
    readonly stateName: string,
    version: unknown,
  ) {
    super(
      `the replicated state "${stateName}" declares version ${String(version)}; a version is a whole number from 1`,
    );
  }
}

/**
 * Raised when a state is both provided and declared retired: a retired
 * state's data is dropped, which a provided one must never be.
 */
export class RetiredStateProvidedError extends Error {
  readonly code = 'RETIRED_STATE_PROVIDED';
  constructor(readonly stateName: string) {
    super(`the state "${stateName}" is declared retired but a module still provides it`);
  }
}

/**
 * A snapshot holds a state written by newer code than this one: it is
 * skipped, like an unreadable one, for an older snapshot or a replay (which
 * stops at a MANIFEST entry this code cannot apply, if there is one).
 */
export class SnapshotTooNewError extends Error {
  readonly code = 'SNAPSHOT_TOO_NEW';
}

/** @deprecated Snapshots no longer fail this way: see {@link StateNotProvidedError}. */
export class StateMismatchError extends Error {
  readonly code = 'STATE_MISMATCH';
}

/** One state as a snapshot holds it: its name, its JSON and the version of the code that wrote it. */
export type StatePicture = readonly [name: string, json: string, version: number];

/** A state as the node is given it: its name, the state, and its code's version (default 1). */
export type StateDeclaration =
  | readonly [name: string, state: ModuleState]
  | readonly [name: string, state: ModuleState, version: number];

/** What a registry needs besides its states. */
export interface StateRegistryOptions {
  /** States the code retired on purpose: their snapshot data is dropped, not refused. */
  readonly retired?: Iterable<string>;
}

/** Where a state's version in force comes from when a handler or a release asks. */
export type VersionOf = (state: string) => number;

const VERSION_ONE: VersionOf = () => FIRST_VERSION;

/**
 * Named module states with the version their code is written for, kept in
 * name order so that snapshots list them in the same order on every node
 * and every run.
 */
export class StateRegistry {
  private readonly states = new Map<string, ModuleState>();
  private readonly versions = new Map<string, number>();
  private scoped: Array<[string, ConnectionScopedState]> = [];
  /** States retired on purpose. */
  readonly retired: ReadonlySet<string>;
  private genesis: StatePicture[] | undefined;

  constructor(states: Iterable<StateDeclaration> = [], options: StateRegistryOptions = {}) {
    this.retired = new Set(options.retired ?? []);
    for (const [name, state, version] of states) this.register(name, state, version);
  }

  register(name: string, state: ModuleState, version: number = FIRST_VERSION): void {
    if (this.states.has(name)) throw new DuplicateStateError(name);
    if (!isStateVersion(version)) throw new InvalidStateVersionError(name, version);
    if (this.retired.has(name)) throw new RetiredStateProvidedError(name);
    this.states.set(name, state);
    this.versions.set(name, version);
    const ordered = [...this.states.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.states.clear();
    for (const [key, value] of ordered) this.states.set(key, value);
    this.scoped = [...this.states.entries()].filter(
      (pair): pair is [string, ConnectionScopedState] => isConnectionScoped(pair[1]),
    );
    this.genesis = undefined;
  }

  get names(): string[] {
    return [...this.states.keys()];
  }

  get(name: string): ModuleState | undefined {
    return this.states.get(name);
  }

  /** The version the code of `name` is written for; undefined when no module provides it. */
  codeVersionOf(name: string): number | undefined {
    return this.versions.get(name);
  }

  /** Every state the code provides with its code's version, in name order. */
  codeVersions(): ReadonlyMap<string, number> {
    return new Map([...this.states.keys()].map((name) => [name, this.versions.get(name)!]));
  }

  /** Every state's picture, in name order, each tagged with its code's version. */
  snapshot(): StatePicture[] {
    return [...this.states.entries()].map(([name, state]) => [
      name,
      JSON.stringify(state.toSnapshot()) ?? 'null',
      this.versions.get(name)!,
    ]);
  }

  /**
   * Remembers every state as it is now (as constructed, before anything
   * applied): what a state a snapshot does not hold starts from.
   */
  captureGenesis(): void {
    this.genesis = this.snapshot();
  }

  /** Back to the states as {@link captureGenesis} found them. */
  restoreGenesis(): void {
    for (const [name, json, version] of this.genesisPictures()) {
      this.states.get(name)!.fromSnapshot(JSON.parse(json), version);
    }
  }

  /**
   * Restores the states a snapshot at `op` holds. A state it does not hold
   * (a module added since) starts as at genesis. A state no module provides
   * is dropped when the code retired it, and refused otherwise
   * (STATE_NOT_PROVIDED); a state written by newer code than this one is
   * refused ({@link SnapshotTooNewError}). Checks everything before it
   * changes anything.
   */
  restore(pictures: readonly StatePicture[], op: number): void {
    const given = new Map<string, StatePicture>();
    for (const picture of pictures) {
      const [name, , version] = picture;
      const provided = this.versions.get(name);
      if (provided === undefined) {
        if (this.retired.has(name)) continue;
        throw new StateNotProvidedError(op, name, `the snapshot at op ${op}`);
      }
      if (version > provided) {
        // Not a CodeChangeError: a node rolled back before the new version
        // took effect may still replay from an older snapshot or op 1.
        throw new SnapshotTooNewError(
          `it holds the state "${name}" written by its version ${version}, newer than this code's version ${provided}`,
        );
      }
      given.set(name, picture);
    }
    const genesis = new Map(this.genesisPictures().map((picture) => [picture[0], picture]));
    for (const [name, state] of this.states) {
      const [, json, version] = given.get(name) ?? genesis.get(name)!;
      state.fromSnapshot(JSON.parse(json), version);
    }
  }

  /** Moves every keyed state's maps into `store` (the node's keyed records). Once, before anything applies. */
  bindKeyed(store: KeyedStore): void {
    for (const [name, state] of this.states) {
      if (isKeyedState(state)) state.bindKeyedStore(store, name);
    }
  }

  /** Drop what `client` held only while connected, in every state that holds such things. */
  releaseClient(client: ClientId, ctx: ApplyContext, versionOf: VersionOf = VERSION_ONE): void {
    for (const [name, state] of this.scoped) {
      state.releaseClient(client, { ...ctx, version: versionOf(name) });
    }
  }

  /** Every client holding connection-scoped things, deduplicated, sorted. */
  holders(): ClientId[] {
    const all = new Set<ClientId>();
    for (const [, state] of this.scoped) for (const client of state.holders()) all.add(client);
    return [...all].sort();
  }

  private genesisPictures(): StatePicture[] {
    this.genesis ??= this.snapshot();
    return this.genesis;
  }
}
