import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type ServiceProcessOptions } from './service-process';
import { ServiceStartError } from './service-start.error';

/**
 * Where the files a service child process runs are, whether this package
 * runs from the once repository's sources (under ts-jest: `.ts` files next
 * to this one), from its build there, or installed in a team's node_modules
 * (compiled `.js` in the package's dist). Everything is found relative to
 * this file; nothing is written anywhere.
 */

/** Whether this code runs from its TypeScript sources (ts-jest, the register hook). */
const FROM_SOURCES = __filename.endsWith('.ts');

/** How far up from this file the repository root is looked for. */
const ANCESTORS_MAX = 6;

/**
 * The require hook that runs TypeScript files in a plain `node`: pass it as
 * `node -r <file> entry.ts`. It transpiles with the project's own
 * `typescript` and, only in the once repository, maps `@once/<lib>` to
 * `libs/<lib>/src` (see typescript-register.js). Published as
 * `@once/testing/typescript-register`.
 */
export function typescriptRegisterFile(): string {
  return join(__dirname, 'typescript-register.js');
}

/** The entry of a service assembled from modules (`ServiceProcess.start({ modules })`). */
export function moduleServiceEntry(): string {
  return join(__dirname, FROM_SOURCES ? 'module-service.main.ts' : 'module-service.main.js');
}

/**
 * The once repository's root when this package runs inside it (from sources
 * or from a build there), else undefined: once installed in a team's
 * node_modules, no root is looked for, whatever that team's repository holds.
 */
export function onceRepositoryRoot(): string | undefined {
  let dir = __dirname;
  for (let i = 0; i < ANCESTORS_MAX; i++) {
    if (basename(dir) === 'node_modules') return undefined;
    if (isOnceRepository(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** A directory with nest-cli.json, libs/ and a package.json named `once`. */
export function isOnceRepository(dir: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name?: unknown;
    };
    return (
      manifest.name === 'once' &&
      existsSync(join(dir, 'nest-cli.json')) &&
      existsSync(join(dir, 'libs'))
    );
  } catch {
    return false;
  }
}

/** Whether a file needs the TypeScript hook (or a loader) to run in node. */
function isTypeScriptFile(file: string): boolean {
  return file.endsWith('.ts');
}

/** What runs in the child: `node <nodeArgs> <entry>` in `cwd`. */
export interface LaunchCommand {
  readonly cwd: string;
  readonly nodeArgs: readonly string[];
  readonly entry: string;
}

/**
 * The command of a service child process; throws a ServiceStartError when
 * the options name no service (before anything is created on disk).
 * `repository` is the once repository this package runs in, if any.
 */
export function launchCommand(
  options: ServiceProcessOptions,
  { repository }: { readonly repository: string | undefined } = {
    repository: onceRepositoryRoot(),
  },
): LaunchCommand {
  const cwd = resolve(options.root ?? repository ?? process.cwd());
  let entry: string;
  if (options.modules) entry = moduleServiceEntry();
  else if (options.entry) entry = resolve(cwd, options.entry);
  else if (repository) entry = join(repository, 'dist/apps/server/src/main.js');
  else
    throw new ServiceStartError(
      'ServiceProcess.start needs `modules` (the NestJS modules of the service, as ' +
        '{ path, export }) or `entry` (the script that starts it): the default entry, the ' +
        'reference service, exists only in the once repository',
    );
  const typescript = [entry, ...(options.modules ?? []).map((module) => module.path)].some(
    isTypeScriptFile,
  );
  const loader = options.loader ?? (typescript ? typescriptRegisterFile() : undefined);
  return { cwd, nodeArgs: loader ? ['-r', loader] : [], entry };
}
