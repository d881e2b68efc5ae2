import { type DynamicModule, type Type } from '@nestjs/common';
import * as NestCore from '@nestjs/core';
import * as OnceFramework from '@once/framework';
import { type OnceModuleOptions } from '@once/framework';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { CliError } from './cli-error';

/**
 * A service's root module as the CLI loads it, either shape the module
 * guide teaches:
 * - a Nest module class importing `OnceModule.forRoot({...})` or
 *   `OnceModule.forRootAsync({...})` (itself, or in a module it imports):
 *   the CLI opens it with `{ dataDir, verifyOnly: true }` over its options
 *   (see `OnceModule.overriding`), its `retired` declarations kept;
 * - a class with a static `register(options)` returning the application's
 *   module with `OnceModule.forRoot(options)` among its imports (the
 *   reference service's `AppModule`): the CLI calls it with
 *   `{ dataDir, verifyOnly: true }`.
 *
 * Either way the service's own handlers and states replay the journal, and
 * nothing is served or written by them.
 */
export type OnceAppModule = RegisteringAppModule | Type;

/** An app module with a static `register(options)` (see {@link OnceAppModule}). */
export interface RegisteringAppModule {
  register(options: OnceModuleOptions): DynamicModule;
}

/** The root module the CLI opens `app` as, with `options` for OnceModule (see {@link OnceAppModule}). */
export function appRootModule(
  app: OnceAppModule,
  options: OnceModuleOptions,
  host: NestHost = OWN_HOST,
): DynamicModule {
  const register = (app as Partial<RegisteringAppModule>).register;
  if (typeof register === 'function') return register.call(app, options);
  return host.OnceModule.overriding(app as Type, options);
}

/**
 * The Nest factory and the once runtime class an app module is built with.
 * They must be the app's own copies: Nest resolves providers by class, so a
 * CLI installed elsewhere (globally, in another tree) with its own copies of
 * `@nestjs/core` and `@once/framework` could not find the app's runtime.
 */
export interface NestHost {
  readonly NestFactory: typeof NestCore.NestFactory;
  readonly OnceRuntime: typeof OnceFramework.OnceRuntime;
  readonly OnceModule: typeof OnceFramework.OnceModule;
}

/** An app module with the host it was loaded with. */
export interface LoadedAppModule {
  readonly module: OnceAppModule;
  readonly host: NestHost;
}

/** The CLI's own copies: right when the CLI and the app share one node_modules. */
export const OWN_HOST: NestHost = {
  NestFactory: NestCore.NestFactory,
  OnceRuntime: OnceFramework.OnceRuntime,
  OnceModule: OnceFramework.OnceModule,
};

/** Where the reference service's built root module is, from the repository's root. */
export const REFERENCE_APP_MODULE = 'dist/apps/server/src/app.module.js';

/**
 * The module file `--app` names, else `ONCE_APP_MODULE`, else the reference
 * service's when it is built under the working directory.
 */
export function appModulePath(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const chosen = option ?? env.ONCE_APP_MODULE;
  if (chosen) return resolve(chosen);
  if (existsSync(REFERENCE_APP_MODULE)) return resolve(REFERENCE_APP_MODULE);
  throw new CliError(
    'NO_APP_MODULE',
    "replaying the journal needs the service's modules: pass --app <file>[#Export] " +
      "(the built file of the service's root module: a Nest module importing OnceModule.forRoot, " +
      'or a class with a static register(options)), or set ONCE_APP_MODULE',
    2,
  );
}

/**
 * Loads `file[#Export]` (default export name `AppModule`), with the
 * `@nestjs/core` and `@once/framework` the file itself resolves (see
 * {@link NestHost}).
 */
export function loadAppModule(spec: string): LoadedAppModule {
  const hash = spec.lastIndexOf('#');
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const name = hash > 0 ? spec.slice(hash + 1) : 'AppModule';
  const load = createRequire(file);
  let loaded: Record<string, unknown>;
  try {
    loaded = load(file) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(
      'APP_MODULE_UNLOADABLE',
      `cannot load the app module ${file}: ${(error as Error).message}`,
      2,
    );
  }
  const candidate = loaded[name] ?? (name === 'AppModule' ? loaded.default : undefined);
  if (typeof candidate !== 'function') {
    throw new CliError(
      'APP_MODULE_INVALID',
      `${file} exports no module class ${name} (exports: ${Object.keys(loaded).join(', ') || 'none'}); ` +
        'name the root module with --app <file>#<Export>',
      2,
    );
  }
  return { module: candidate as OnceAppModule, host: hostFrom(load) };
}

/** `@nestjs/core` and `@once/framework` as the app resolves them; the CLI's own where it cannot. */
function hostFrom(load: NodeJS.Require): NestHost {
  try {
    const core = load('@nestjs/core') as typeof NestCore;
    const framework = load('@once/framework') as typeof OnceFramework;
    return {
      NestFactory: core.NestFactory,
      OnceRuntime: framework.OnceRuntime,
      OnceModule: framework.OnceModule,
    };
  } catch {
    return OWN_HOST;
  }
}
