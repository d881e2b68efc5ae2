import { SdkInvariantError } from './sdk-invariant.error';

/** Asserts an invariant of the SDK; cheap enough for hot paths (no formatting unless it fails). */
export function sdkAssert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new SdkInvariantError(message);
}
