import { OnceError } from '@once/sdk';
import { NEST_CLIENT_OPTIONS } from './nest-client-options';

/**
 * A NestJS client option that OnceClientProxy refuses rather than ignores
 * (see `NEST_CLIENT_OPTIONS`): `serializer` and `deserializer` (once's wire
 * format is fixed), and the TCP client's options the once client has no
 * equivalent of, each with what to use instead.
 */
export class UnsupportedOptionError extends TypeError {
  readonly code = 'OPTION_UNSUPPORTED';

  constructor(
    readonly option: string,
    reason: string = NEST_CLIENT_OPTIONS[option as keyof typeof NEST_CLIENT_OPTIONS],
  ) {
    super(`OnceClientProxy takes no ${option}: ${reason}`);
  }
}

/** An option OnceClientProxy does not know: refused, not passed on and ignored. */
export class UnknownOptionError extends TypeError {
  readonly code = 'OPTION_UNKNOWN';

  constructor(
    readonly option: string,
    known: readonly string[],
  ) {
    super(
      `OnceClientProxy has no option "${option}"; its options are ${[...known].sort().join(', ')}`,
    );
  }
}

/**
 * `on(event)` for an event OnceClientProxy never emits. NestJS's TCP client
 * passes any name to its socket; a once client has no single socket (it
 * reconnects and resumes its session), so a socket event such as 'drain'
 * would be registered and silently never fire.
 */
export class UnsupportedEventError extends TypeError {
  readonly code = 'EVENT_UNSUPPORTED';

  constructor(
    readonly event: string,
    supported: readonly string[],
  ) {
    super(
      `OnceClientProxy has no '${event}' event: it emits ${supported.map((name) => `'${name}'`).join(', ')}; for every transition of the connection and the session, subscribe to unwrap<OnceClient>().events$`,
    );
  }
}

/**
 * `emit()` of a pattern the node serves as a @Query. An event is a command,
 * journaled and applied exactly once; a query changes nothing and answers a
 * read, so emitting it is a mistake: nothing is sent.
 */
export class QueryEmitError extends OnceError {
  override readonly name = 'QueryEmitError';
  declare readonly code: 'QUERY_PATTERN';

  constructor(readonly pattern: string) {
    super(
      'QUERY_PATTERN',
      `emit('${pattern}'): "${pattern}" is a @Query, which only reads; an event is a command applied exactly once. Use send() to run the query`,
    );
  }
}
