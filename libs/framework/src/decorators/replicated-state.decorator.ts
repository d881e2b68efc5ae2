import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import { ONCE_STATE_METADATA } from '../once.constants';

/**
 * Marks a provider as replicated module state: the engine snapshots it
 * (`toSnapshot`) and restores it (`fromSnapshot`), and only command apply
 * steps change it. `name` is its key in snapshots: keep it stable.
 * The class must implement `ModuleState` (and `ConnectionScopedState` if it
 * holds things only while a client is connected).
 */
export function ReplicatedState(name: string): ClassDecorator {
  return applyDecorators(Injectable(), SetMetadata(ONCE_STATE_METADATA, name));
}
