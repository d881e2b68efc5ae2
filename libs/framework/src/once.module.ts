import { type DynamicModule, Global, Module, type Provider, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { HandlerExplorer } from './handler-explorer';
import {
  type OnceModuleAsyncOptions,
  type OnceModuleOptions,
} from './once-module-options.interface';
import { OnceRuntime } from './once-runtime';
import { ONCE_MODULE_OPTIONS } from './once.constants';

/**
 * Injection token of options that replace, where given, those an
 * application's `OnceModule` import names (see `OnceModule.overriding`).
 */
const ONCE_MODULE_OPTIONS_OVERRIDE = Symbol.for('once:module-options-override');

/** Provides the override to every module (OnceModule's options provider among them). */
@Module({})
class OnceOptionsOverrideModule {}

/** The root of an application opened with overridden options. */
@Module({})
class OnceOverriddenApplication {}

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
    return OnceModule.build(
      [
        {
          provide: ONCE_MODULE_OPTIONS,
          useFactory: (override?: Partial<OnceModuleOptions>) => ({ ...options, ...override }),
          inject: [{ token: ONCE_MODULE_OPTIONS_OVERRIDE, optional: true }],
        },
      ],
      [],
    );
  }

  static forRootAsync(options: OnceModuleAsyncOptions): DynamicModule {
    return OnceModule.build(
      [
        {
          provide: ONCE_MODULE_OPTIONS,
          useFactory: async (
            override: Partial<OnceModuleOptions> | undefined,
            ...args: never[]
          ) => ({
            ...(await options.useFactory(...args)),
            ...override,
          }),
          inject: [
            { token: ONCE_MODULE_OPTIONS_OVERRIDE, optional: true },
            ...(options.inject ?? []),
          ],
        },
      ],
      options.imports ?? [],
    );
  }

  /**
   * `app`, an application's root module however it imports `OnceModule`
   * (`forRoot`, `forRootAsync`, from a module of its own), with `options`
   * over the options it gives OnceModule. How a tool opens a team's
   * application on another data directory: the CLI's `verify`, `sessions`
   * and `snapshot` give `{ dataDir, verifyOnly: true }`, and the
   * application's own handlers, states, `retired` and `genesis` stay as it
   * declares them.
   */
  static overriding(app: Type | DynamicModule, options: Partial<OnceModuleOptions>): DynamicModule {
    return {
      module: OnceOverriddenApplication,
      imports: [
        {
          module: OnceOptionsOverrideModule,
          global: true,
          providers: [{ provide: ONCE_MODULE_OPTIONS_OVERRIDE, useValue: options }],
          exports: [ONCE_MODULE_OPTIONS_OVERRIDE],
        },
        app,
      ],
    };
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
