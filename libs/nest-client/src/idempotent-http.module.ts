import { type DynamicModule, Module } from '@nestjs/common';
import { IdempotentHttpClient } from '@once/sdk';
import {
  type IdempotentHttpModuleAsyncOptions,
  type IdempotentHttpModuleOptions,
} from './idempotent-http-module-options';

/**
 * Provides an `IdempotentHttpClient` of `@once/sdk` to a NestJS application,
 * for calling the idempotent HTTP endpoints of another service: every call
 * one operation under one `Idempotency-Key`, kept across its retries.
 *
 * ```ts
 * @Module({ imports: [IdempotentHttpModule.register({ baseUrl: 'http://ledger:3000' })] })
 * class PaymentsModule {}
 *
 * @Injectable()
 * class Payments {
 *   constructor(private readonly ledger: IdempotentHttpClient) {}
 * }
 * ```
 *
 * The client holds no connection (the global `fetch` pools them), so the
 * module has nothing to open or close.
 */
@Module({})
export class IdempotentHttpModule {
  /** A client from options known now; its options are checked at once. */
  static register(options: IdempotentHttpModuleOptions): DynamicModule {
    const { name, ...clientOptions } = options;
    const token = name ?? IdempotentHttpClient;
    return {
      module: IdempotentHttpModule,
      providers: [{ provide: token, useValue: new IdempotentHttpClient(clientOptions) }],
      exports: [token],
    };
  }

  /** A client whose options come from other providers (configuration). */
  static registerAsync(options: IdempotentHttpModuleAsyncOptions): DynamicModule {
    const token = options.name ?? IdempotentHttpClient;
    return {
      module: IdempotentHttpModule,
      imports: options.imports ?? [],
      providers: [
        {
          provide: token,
          useFactory: async (...args: never[]) =>
            new IdempotentHttpClient(await options.useFactory(...args)),
          inject: options.inject ?? [],
        },
      ],
      exports: [token],
    };
  }
}
