import { type ClientId } from '@once/protocol';
import { type ApplyContext } from './apply-context';

/**
 * The state a module's command handlers mutate. The engine snapshots it and
 * restores it; it is never written anywhere but by apply.
 *
 * `toSnapshot` must be deterministic (equal states give equal JSON: emit maps
 * as arrays in a defined order) because replay is verified byte for byte.
 */
export interface ModuleState {
  /** A JSON-serialisable picture of the whole state. */
  toSnapshot(): unknown;
  /**
   * Replace the whole state with a picture made by `toSnapshot`.
   *
   * `version` is the version of the code that wrote the picture (1 for
   * pictures written before versions existed): a state whose shape changed
   * with a version bump reads older pictures here and migrates them. A
   * picture newer than the code is refused before this is called.
   */
  fromSnapshot(snapshot: unknown, version: number): void;
}

/**
 * A state that holds things only while a client is connected (a consumer group
 * membership, say). The engine calls `releaseClient` when a journaled release
 * says that client's connection ended, and when its session ends (logout,
 * eviction, expiry); it calls it for every `holders()` entry at boot, because
 * after a restart no connection survives.
 */
export interface ConnectionScopedState extends ModuleState {
  releaseClient(client: ClientId, ctx: ApplyContext): void;
  /** Every client that holds something now, in a deterministic order. */
  holders(): ClientId[];
}

export function isConnectionScoped(state: ModuleState): state is ConnectionScopedState {
  const candidate = state as Partial<ConnectionScopedState>;
  return typeof candidate.releaseClient === 'function' && typeof candidate.holders === 'function';
}
