import { type ModuleMetadata } from '@nestjs/common';
import { type IdempotentHttpClientOptions } from '@once/sdk';

/** The token an {@link IdempotentHttpModule} provides its client under. */
export type IdempotentHttpClientToken = string | symbol;

/**
 * {@link IdempotentHttpModule.register}'s options: the client's (see
 * `IdempotentHttpClientOptions` of `@once/sdk`, same defaults), and the token
 * it is provided under.
 */
export interface IdempotentHttpModuleOptions extends IdempotentHttpClientOptions {
  /**
   * The injection token: give one per service when a module calls several
   * (`@Inject('LEDGER') ledger: IdempotentHttpClient`). Default: the
   * `IdempotentHttpClient` class, injected by its type alone.
   */
  readonly name?: IdempotentHttpClientToken;
}

/** {@link IdempotentHttpModule.registerAsync}'s options: the client's options from a factory. */
export interface IdempotentHttpModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** As in {@link IdempotentHttpModuleOptions}. Default: the `IdempotentHttpClient` class. */
  readonly name?: IdempotentHttpClientToken;
  /** The client's options, from the providers of `inject` (a `ConfigService`, say). */
  readonly useFactory: (
    ...args: never[]
  ) => IdempotentHttpClientOptions | Promise<IdempotentHttpClientOptions>;
  /** What `useFactory` receives. Default: nothing. */
  readonly inject?: Array<string | symbol | (abstract new (...args: never[]) => unknown)>;
}
