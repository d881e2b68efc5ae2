import { type DynamicModule } from '@nestjs/common';
import { type OnceModuleOptions } from '@once/framework';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { CliError } from './cli-error';

/**
 * A service's root module as the CLI loads it: a class with a static
 * `register(options)` that returns the application's module with
 * `OnceModule.forRoot(options)` among its imports (the reference service's
 * `AppModule` has this shape). The CLI calls it with
 * `{ dataDir, verifyOnly: true }`: the service's own handlers and states
 * replay the journal, and nothing is served or written by them.
 */
export interface OnceAppModule {
  register(options: OnceModuleOptions): DynamicModule;
}

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
      '(a built module exporting a class with a static register(options), like the reference ' +
      "service's AppModule), or set ONCE_APP_MODULE",
    2,
  );
}

/**
 * Loads `file[#Export]` (default export name `AppModule`). The file is
 * required from its own location, so it resolves `@once/*` and `@nestjs/*`
 * from the service's node_modules, the same copies the CLI uses there.
 */
export function loadAppModule(spec: string): OnceAppModule {
  const hash = spec.lastIndexOf('#');
  const file = hash > 0 ? spec.slice(0, hash) : spec;
  const name = hash > 0 ? spec.slice(hash + 1) : 'AppModule';
  let loaded: Record<string, unknown>;
  try {
    loaded = createRequire(file)(file) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(
      'APP_MODULE_UNLOADABLE',
      `cannot load the app module ${file}: ${(error as Error).message}`,
      2,
    );
  }
  const candidate = loaded[name] ?? (name === 'AppModule' ? loaded.default : undefined);
  if (typeof (candidate as Partial<OnceAppModule> | undefined)?.register !== 'function') {
    throw new CliError(
      'APP_MODULE_INVALID',
      `${file} exports no ${name} with a static register(options) (exports: ${Object.keys(loaded).join(', ') || 'none'})`,
      2,
    );
  }
  return candidate as OnceAppModule;
}
