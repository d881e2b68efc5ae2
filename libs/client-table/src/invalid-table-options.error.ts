/**
 * Thrown when a `ClientTableOptions` value is not usable: `capacity` and `ring`
 * must be integers in 1..`MAX_TABLE_LIMIT` (2^32 - 1).
 *
 * A RangeError because the value is out of the accepted range; the stable `code`
 * lets callers (configuration loading, settings commands) branch without parsing text.
 */
export class InvalidTableOptionsError extends RangeError {
  readonly code = 'INVALID_TABLE_OPTIONS' as const;

  constructor(message: string) {
    super(message);
    this.name = 'InvalidTableOptionsError';
  }
}
