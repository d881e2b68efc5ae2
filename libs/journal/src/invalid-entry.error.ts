/**
 * A draft handed to `append` (or `encodeEntry`) breaks a field rule. It is a
 * programming error of the caller, hence a TypeError, thrown synchronously and
 * before any op is assigned, so the op sequence keeps no hole.
 */
export class InvalidEntryError extends TypeError {
  readonly code = 'INVALID_ENTRY';
  override readonly name = 'InvalidEntryError';

  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`invalid journal entry: ${field} ${reason}`);
  }
}
