/**
 * A setting's value does not parse or is out of its range. The message names
 * the setting (by its flag name) and says what it takes, so an operator can
 * mend it without reading code.
 */
export class InvalidSettingError extends Error {
  readonly code = 'INVALID_SETTING';
  override readonly name = 'InvalidSettingError';

  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}
