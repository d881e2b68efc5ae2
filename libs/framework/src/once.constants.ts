/** Metadata on a `@Command` method's admission stub: `{ pattern, layout }` (the apply step's parameters). */
export const ONCE_COMMAND_METADATA = 'once:command';
/** Metadata on a `@Command` method's admission stub: the original method, run at apply. */
export const ONCE_APPLY_METADATA = 'once:apply';
/** Metadata on an `@Admit` method: `{ pattern }`. */
export const ONCE_ADMIT_METADATA = 'once:admit';
/** Metadata on a `@Query` method: `{ pattern }`. */
export const ONCE_QUERY_METADATA = 'once:query';
/** Metadata on a `@ReplicatedState` class: its state name. */
export const ONCE_STATE_METADATA = 'once:state';

/**
 * The transport id of the once gateway. `@Command` handlers are registered on
 * it only: on any other transport their admission stub would be reachable
 * without the exactly-once machinery.
 */
export const ONCE_TRANSPORT = Symbol.for('once:transport');

/** Injection token of the module options. */
export const ONCE_MODULE_OPTIONS = Symbol.for('once:module-options');
/** Injection token of the application's {@link OnceAuthenticator}. */
export const ONCE_AUTHENTICATOR = Symbol.for('once:authenticator');

/** `extras` of the message patterns the framework registers, to tell them apart. */
export const ONCE_PATTERN_KIND = 'onceKind';
/** `extras` of the message patterns the framework registers: the route (see `routeOf`) they answer to. */
export const ONCE_PATTERN_ROUTE = 'onceRoute';

/** Metadata on an `@Idempotent` method's admission stub: `{ layout, options }` (see `IdempotentMetadata`). */
export const ONCE_HTTP_METADATA = 'once:http';
