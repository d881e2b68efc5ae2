import { OnceError } from './once.error';

/**
 * An option was given under both its name and its deprecated old name
 * (`maxInFlight` and `inFlightMax`, say) with different values. Refused rather
 * than resolved by a rule of precedence: one of the two values is a mistake
 * (usually a left-over of a partial rename), and picking either silently
 * would run the client with a limit its author did not mean.
 */
export class OptionNameConflictError extends OnceError {
  override readonly name = 'OptionNameConflictError';
  declare readonly code: 'OPTION_NAME_CONFLICT';

  constructor(
    /** The option's name, e.g. `inFlightMax` or `reconnect.attemptsMax`. */
    readonly option: string,
    /** Its deprecated old name, e.g. `maxInFlight`. */
    readonly deprecatedName: string,
    values: { readonly given: unknown; readonly deprecated: unknown },
  ) {
    super(
      'OPTION_NAME_CONFLICT',
      `options ${option} (${String(values.given)}) and ${deprecatedName} (${String(values.deprecated)}, its deprecated name) are both given with different values; give ${option} only`,
    );
  }
}
