import { type DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { HandlerExplorer } from './handler-explorer';
import {
  type OnceModuleAsyncOptions,
  type OnceModuleOptions,
} from './once-module-options.interface';
import { OnceRuntime } from './once-runtime';
import { ONCE_MODULE_OPTIONS } from './once.constants';

/**
 * The exactly-once runtime for an application. Import it once, in the root
 * module; every `@Command`, `@Admit`, `@Query` and `@ReplicatedState` of the
 * application's modules is discovered from there.
 *
 * ```ts
 * @Module({ imports: [OnceModule.forRoot({ dataDir: './data' }), LedgerModule] })
 * export class AppModule {}
 * ```
 */
@Global()
@Module({})
export class OnceModule {
  static forRoot(options: OnceModuleOptions): DynamicModule {
    return OnceModule.build([{ provide: ONCE_MODULE_OPTIONS, useValue: options }], []);
  }

  static forRootAsync(options: OnceModuleAsyncOptions): DynamicModule {
    return OnceModule.build(
      [
        {
          provide: ONCE_MODULE_OPTIONS,
          useFactory: options.useFactory,
          inject: options.inject ?? [],
        },
      ],
      options.imports ?? [],
    );
  }

  private static build(
    optionProviders: Provider[],
    imports: DynamicModule['imports'],
  ): DynamicModule {
    return {
      module: OnceModule,
      imports: [DiscoveryModule, ...(imports ?? [])],
      providers: [...optionProviders, HandlerExplorer, OnceRuntime],
      exports: [OnceRuntime, ONCE_MODULE_OPTIONS],
    };
  }
}
