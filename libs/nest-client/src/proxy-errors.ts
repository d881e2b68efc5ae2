import { OnceError } from '@once/sdk';

/**
 * A NestJS client option that OnceClientProxy refuses rather than ignores:
 * `serializer` and `deserializer`. Once's wire format is fixed (JSON bodies in
 * checksummed protocol frames, journaled and replayed byte for byte), so there
 * is nothing a codec could plug into without breaking the reply cache.
 */
export class UnsupportedOptionError extends TypeError {
  readonly code = 'OPTION_UNSUPPORTED';

  constructor(readonly option: string) {
    super(
      `OnceClientProxy takes no ${option}: once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data before send() or emit(), and the result after, instead`,
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
