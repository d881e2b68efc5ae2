import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './node-program';

/**
 * The once packages as a team gets them: built, packed into tarballs, and
 * installed into a project of its own, outside the repository.
 *
 *     await buildPackages();
 *     const tarballs = await packWorkspaces(join(work, 'tarballs'));
 *     await installIntoTemp(project, Object.values(tarballs), peerDependencySpecs());
 *
 * Every npm run here gets an environment without the `npm_*` variables of an
 * enclosing `npm test`, so that an install in a temporary project cannot
 * take the repository for its prefix.
 */

/** The workspaces of the repository, in the build order of the root package.json. */
export const WORKSPACES: readonly string[] = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }
).workspaces;

/** The package name of each workspace (`libs/sdk` → `@once/sdk`), in the same order. */
export const PACKAGE_NAMES: readonly string[] = WORKSPACES.map(
  (workspace) =>
    (JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')) as { name: string })
      .name,
);

/**
 * The peer dependencies a service needs next to the once packages, at the
 * versions the repository itself is installed and tested with (npm finds
 * them in its cache): the NestJS packages (terminus for `@once/metrics`), rxjs
 * and reflect-metadata, and `typescript` for the `.ts` modules and the
 * `@once/testing` hook.
 */
export function peerDependencySpecs(
  names: readonly string[] = [
    '@nestjs/common',
    '@nestjs/core',
    '@nestjs/microservices',
    '@nestjs/terminus',
    'reflect-metadata',
    'rxjs',
    'typescript',
  ],
): string[] {
  return names.map((name) => {
    const { version } = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { version: string };
    return `${name}@${version}`;
  });
}

/**
 * Builds every package into its dist (`npm run build:packages`): quick when
 * they are up to date, and it drops outputs whose source is gone.
 */
export async function buildPackages(boundMs = 180_000): Promise<void> {
  await run(process.execPath, [join(ROOT, 'scripts/build-packages.js')], ROOT, boundMs);
}

/**
 * `npm pack --workspaces` into `destDir` (which must exist); resolves with
 * each package's tarball path by package name. Packs what the dists hold:
 * call {@link buildPackages} first.
 */
export async function packWorkspaces(
  destDir: string,
  boundMs = 120_000,
): Promise<Record<string, string>> {
  const output = await run(
    npmCommand(),
    ['pack', '--workspaces', '--json', '--pack-destination', destDir],
    ROOT,
    boundMs,
  );
  const packed = JSON.parse(output.stdout) as Array<{ name: string; filename: string }>;
  return Object.fromEntries(packed.map(({ name, filename }) => [name, join(destDir, filename)]));
}

/**
 * Installs `tarballs` and `extraDeps` (npm specs such as
 * `@nestjs/common@11`) into `projectDir`, which gets a minimal private
 * package.json if it has none. Install scripts are not run (the native
 * packages load their bundled prebuilds) and the registry is asked only for
 * what the npm cache lacks.
 */
export async function installIntoTemp(
  projectDir: string,
  tarballs: readonly string[],
  extraDeps: readonly string[] = [],
  boundMs = 300_000,
): Promise<void> {
  const manifest = join(projectDir, 'package.json');
  if (!(await exists(manifest))) {
    await writeFile(
      manifest,
      `${JSON.stringify({ name: 'once-packed-consumer', version: '0.0.0', private: true }, null, 2)}\n`,
    );
  }
  await run(
    npmCommand(),
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--ignore-scripts',
      '--no-package-lock',
      ...tarballs,
      ...extraDeps,
    ],
    projectDir,
    boundMs,
  );
}

/** The environment of this process without the `npm_*` variables an enclosing npm run sets. */
export function environmentWithoutNpm(
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith('npm_')) env[key] = value;
  }
  return { ...env, ...extra };
}

/** What a command printed. */
export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to its end; rejects with its output when it exits non-zero
 * or outlives `boundMs` (then it is SIGKILLed: a bound, not a timing).
 */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  boundMs: number,
  env: NodeJS.ProcessEnv = environmentWithoutNpm(),
): Promise<CommandOutput> {
  return new Promise((done, failed) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      failed(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done({ stdout, stderr });
      else
        failed(
          new Error(
            `${command} ${args.join(' ')} (in ${cwd}) ended with ${code ?? signal}:\n${stdout}\n${stderr}`,
          ),
        );
    });
  });
}

/** npm, from PATH. */
function npmCommand(): string {
  return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
