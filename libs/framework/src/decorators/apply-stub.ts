import { ONCE_APPLY_METADATA } from '../once.constants';

type AnyMethod = (...args: unknown[]) => unknown;

/**
 * Puts `stub`, the admission NestJS calls, in the place of the method
 * `apply` on `descriptor`. The stub takes the method's name and the metadata
 * recorded on it (enhancers and route decorators declared below once's
 * decorator), and keeps `apply` itself under ONCE_APPLY_METADATA, where
 * discovery finds the apply step. The caller records its own metadata on
 * the stub after this.
 */
export function standInForApply(
  apply: AnyMethod,
  stub: AnyMethod,
  descriptor: PropertyDescriptor,
): void {
  for (const metadataKey of Reflect.getMetadataKeys(apply)) {
    Reflect.defineMetadata(metadataKey, Reflect.getMetadata(metadataKey, apply), stub);
  }
  Object.defineProperty(stub, 'name', { value: apply.name });
  Reflect.defineMetadata(ONCE_APPLY_METADATA, apply, stub);
  descriptor.value = stub;
}
