import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import { ONCE_STATE_METADATA } from '../once.constants';

/** Options of {@link ReplicatedState}. */
export interface ReplicatedStateOptions {
  /**
   * The version of this module's code: a whole number from 1 (the
   * default). Bump it when a command's apply step would give another reply
   * or another state for an entry already journaled; the journal records
   * from which op each version is in force, every entry is applied under
   * its own (`ctx.version` in the module's handlers), and `fromSnapshot` is
   * told the version that wrote a snapshot. See the guide "Changing your
   * code".
   */
  readonly version?: number;
}

/** What {@link ReplicatedState} records on the class. */
export interface ReplicatedStateMetadata {
  readonly name: string;
  readonly version: number;
}

/**
 * Marks a provider as replicated module state: the engine snapshots it
 * (`toSnapshot`) and restores it (`fromSnapshot`), and only command apply
 * steps change it. `name` is its key in snapshots and in the journal's
 * record of versions: keep it stable.
 * The class must implement `ModuleState` (and `ConnectionScopedState` if it
 * holds things only while a client is connected).
 */
export function ReplicatedState(
  name: string,
  options: ReplicatedStateOptions = {},
): ClassDecorator {
  const metadata: ReplicatedStateMetadata = { name, version: options.version ?? 1 };
  return applyDecorators(Injectable(), SetMetadata(ONCE_STATE_METADATA, metadata));
}
