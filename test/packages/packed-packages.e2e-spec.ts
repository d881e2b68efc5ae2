import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { copyExample } from '../examples/support/example-project';
import { ROOT } from '../support/node-program';
import {
  PACKAGE_NAMES,
  buildPackages,
  environmentWithoutNpm,
  installIntoTemp,
  packWorkspaces,
  peerDependencySpecs,
  run,
} from '../support/packed-workspaces';

interface Manifest {
  name: string;
  version: string;
  main: string;
  types: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Every file under `dir`, relative to it, with `/` separators. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

const IMPORT_PATTERNS = [
  /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  /\bfrom\s+["']([^"']+)["']/g,
  /\bimport\s+["']([^"']+)["']/g,
];

/** The bare module names a built file (JS or declarations) loads or refers to. */
function bareImports(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) {
    for (const match of source.matchAll(pattern)) {
      const specifier = match[1];
      if (!specifier.startsWith('.') && !specifier.startsWith('/')) found.add(specifier);
    }
  }
  return [...found];
}

/** `@scope/name/deep/path` → `@scope/name`; `name/deep` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const BUILTINS = new Set(builtinModules);
const isBuiltin = (specifier: string): boolean =>
  specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(packageOf(specifier));

describe('given every workspace built and packed with npm pack --workspaces', () => {
  let work: string;
  let tarballs: Record<string, string>;
  const unpacked = (name: string): string => join(work, 'unpacked', name, 'package');

  beforeAll(async () => {
    await buildPackages();
    work = await mkdtemp(join(tmpdir(), 'once-packed-'));
    await mkdir(join(work, 'tarballs'));
    tarballs = await packWorkspaces(join(work, 'tarballs'));
    for (const [name, tarball] of Object.entries(tarballs)) {
      const into = join(work, 'unpacked', name);
      await mkdir(into, { recursive: true });
      await run('tar', ['-xzf', tarball, '-C', into], work, 60_000);
    }
  }, 300_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('then there is one tarball per workspace', () => {
    expect(Object.keys(tarballs).sort()).toEqual([...PACKAGE_NAMES].sort());
  });

  describe.each(PACKAGE_NAMES)('then the tarball of %s', (name) => {
    it('holds its manifest and built code with declarations, and no sources, specs or build info', async () => {
      const files = await listFiles(unpacked(name));
      expect(files).toEqual(
        expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts']),
      );
      const unwanted = files.filter(
        (file) =>
          (file.endsWith('.ts') && !file.endsWith('.d.ts')) ||
          /\.spec\.|__fixtures__|tsbuildinfo/.test(file) ||
          !(file === 'package.json' || file === 'README.md' || file.startsWith('dist/')),
      );
      expect(unwanted).toEqual([]);
      const withoutDeclarations = files
        .filter((file) => file.endsWith('.js'))
        .filter((file) => !files.includes(file.replace(/\.js$/, '.d.ts')));
      expect(withoutDeclarations).toEqual([]);
    });

    it('points main, types and every export at files it holds', async () => {
      const root = unpacked(name);
      const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Manifest;
      const files = new Set(await listFiles(root));
      const targets = [
        manifest.main,
        manifest.types,
        ...Object.values(manifest.exports).flatMap((target) =>
          typeof target === 'string' ? [target] : Object.values(target),
        ),
      ].map((target) => target.replace(/^\.\//, ''));
      expect(targets.filter((target) => !files.has(target))).toEqual([]);
    });

    it('declares every package its built code or declarations import, and depends on nothing else', async () => {
      const root = unpacked(name);
      const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Manifest;
      const dependencies = manifest.dependencies ?? {};
      const declared = new Set([
        ...Object.keys(dependencies),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const imported = new Set<string>();
      const missing: string[] = [];
      for (const file of await listFiles(join(root, 'dist'))) {
        if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue;
        for (const specifier of bareImports(await readFile(join(root, 'dist', file), 'utf8'))) {
          if (isBuiltin(specifier) || packageOf(specifier) === name) continue;
          imported.add(packageOf(specifier));
          if (!declared.has(packageOf(specifier))) missing.push(`dist/${file}: ${specifier}`);
        }
      }
      expect(missing).toEqual([]);
      expect(Object.keys(dependencies).filter((dependency) => !imported.has(dependency))).toEqual(
        [],
      );
      const once = Object.entries(dependencies).filter(([dependency]) =>
        dependency.startsWith('@once/'),
      );
      expect(once.filter(([, range]) => range !== manifest.version)).toEqual([]);
    });
  });

  describe('given the tarballs installed with the peer packages in a project of its own', () => {
    let project: string;
    let temp: string;
    beforeAll(async () => {
      project = join(work, 'team-service');
      temp = join(work, 'team-tmp');
      await mkdir(join(project, 'src'), { recursive: true });
      await mkdir(temp);
      await installIntoTemp(project, Object.values(tarballs), [
        ...peerDependencySpecs(),
        ...peerDependencySpecs(['@types/node']),
      ]);
      await writeFile(join(project, 'counter.module.js'), COUNTER_MODULE_JS);
      await writeFile(join(project, 'src', 'counter.module.ts'), COUNTER_MODULE_TS);
      await writeFile(join(project, 'scenario.js'), SCENARIO_JS);
    }, 600_000);

    it(
      'when a plain node loads every package and the installed @once/testing runs services of ' +
        "the team's .js and .ts modules, then both answer from the installed packages and " +
        'nothing is left in the temporary directory',
      async () => {
        const { stdout } = await run(
          process.execPath,
          ['scenario.js', JSON.stringify(PACKAGE_NAMES)],
          project,
          180_000,
          environmentWithoutNpm({ TMPDIR: temp }),
        );
        const report = JSON.parse(stdout.trim().split('\n').pop()!) as ScenarioReport;

        expect(report.loaded.map(([loaded]) => loaded)).toEqual(PACKAGE_NAMES);
        expect(report.loaded.filter(([, exports]) => exports === 0)).toEqual([]);
        for (const resolved of Object.values(report.resolved)) {
          expect(resolved.startsWith(join(project, 'node_modules'))).toBe(true);
        }
        for (const service of [report.js, report.ts]) {
          expect(service.first).toEqual({ ok: true, result: { total: 2 } });
          expect(service.second).toEqual({ ok: true, result: { total: 5 } });
          expect(service.where).toEqual({
            ok: true,
            result: { framework: report.resolved['@once/framework'] },
          });
          expect(service.exitCode).toBe(0);
        }
        const left = await readdir(temp);
        expect(left.filter((file) => file.startsWith('once-ts-hook'))).toEqual([]);
        expect(left).toEqual([]);
      },
      240_000,
    );

    it('when a strict team repository (module commonjs, default moduleResolution, skipLibCheck false) type-checks its module against them, then tsc finds nothing', async () => {
      await writeFile(join(project, 'tsconfig.strict.json'), STRICT_TSCONFIG);
      await writeFile(join(project, 'src', 'main.ts'), STRICT_MAIN_TS);
      const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
      const { stdout, stderr } = await run(
        process.execPath,
        [tsc, '-p', 'tsconfig.strict.json'],
        project,
        120_000,
      ).catch((error: Error) => ({ stdout: error.message, stderr: '' }));
      expect(`${stdout}${stderr}`).toBe('');
    }, 150_000);

    it('when a service names neither modules nor an entry, then ServiceProcess says to pass one', async () => {
      const { stdout } = await run(
        process.execPath,
        [
          '-e',
          `require('@once/testing').ServiceProcess.start().then(
             () => console.log('started'),
             (error) => console.log(error.code + ': ' + error.message))`,
        ],
        project,
        60_000,
        environmentWithoutNpm({ TMPDIR: temp }),
      );
      expect(stdout).toMatch(/^SERVICE_START: .*needs `modules`.*or `entry`/);
      expect(await readdir(temp)).toEqual([]);
    });
  });

  describe('given the example team repository installed from them with the overrides its README lists', () => {
    let project: string;
    let installOutput: string;
    beforeAll(async () => {
      project = join(work, 'inventory-service');
      await copyExample(join(ROOT, 'examples', 'inventory-service'), project);
      const listed = await readmeOverrides();
      await pointAtTarballsAsReadme(project, tarballs, listed);
      const { stdout, stderr } = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'],
        project,
        300_000,
      );
      installOutput = `${stdout}${stderr}`;
    }, 400_000);

    it('then npm warned of no engine mismatch', () => {
      expect(installOutput).not.toMatch(/EBADENGINE/);
    });

    it("then every @once package came from a tarball, none from a registry, and the README's list names exactly those installed", async () => {
      const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { resolved?: string }>;
      };
      const once = Object.entries(lock.packages).filter(([path]) =>
        /(^|\/)node_modules\/@once\/[^/]+$/.test(path),
      );
      expect(once.filter(([, entry]) => !entry.resolved?.startsWith('file:'))).toEqual([]);
      const installed = [...new Set(once.map(([path]) => path.replace(/^.*node_modules\//, '')))];
      expect(installed.sort()).toEqual((await readmeOverrides()).sort());
    });

    it('then no @nats-io package (nor @once/cluster) is installed', async () => {
      const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, unknown>;
      };
      expect(
        Object.keys(lock.packages).filter((path) => /@nats-io\/|@once\/cluster/.test(path)),
      ).toEqual([]);
      expect(existsSync(join(project, 'node_modules', '@nats-io'))).toBe(false);
      expect(existsSync(join(project, 'node_modules', '@once', 'cluster'))).toBe(false);
    });

    it('when its service is built and run until it serves, then it never loads a NATS module', async () => {
      await run('npm', ['run', 'build'], project, 120_000);
      await writeFile(join(project, 'record-loads.js'), RECORD_LOADS_JS);
      const loadsFile = join(project, 'loads.json');
      await runUntilReady(project, {
        ONCE_ADMIN_PASSWORD: 'packed-admin-pw',
        ONCE_DATA_DIR: join(project, 'data'),
        ONCE_PORT: '0',
        ONCE_LOADS_FILE: loadsFile,
      });
      const lines = (await readFile(loadsFile, 'utf8')).trim().split('\n');
      const pairs = lines.map((line) => JSON.parse(line) as [string, string]);
      const loads = {
        requests: pairs.map(([request]) => request),
        files: pairs.map(([, file]) => file),
      };
      // The hook saw the service load once: a check that can fail.
      expect(loads.requests).toEqual(expect.arrayContaining(['@once/framework', '@once/gateway']));
      expect(loads.requests.filter((request) => /@nats-io|@once\/cluster/.test(request))).toEqual(
        [],
      );
      expect(loads.files.filter((file) => /@nats-io|@once[\\/]cluster/.test(file))).toEqual([]);
    }, 200_000);
  });
});

/** The `@once/*` packages the example's README lists under `overrides`. */
async function readmeOverrides(): Promise<string[]> {
  const readme = await readFile(join(ROOT, 'examples', 'inventory-service', 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((match) => match[1])
    .find((text) => text.includes('"overrides"'));
  if (!block) throw new Error('the example README shows no overrides block');
  return Object.keys((JSON.parse(block) as { overrides: Record<string, string> }).overrides);
}

/**
 * The README's recipe: each declared `@once/*` dependency and each package
 * `listed` under `overrides` pointed at its tarball, and nothing else.
 */
async function pointAtTarballsAsReadme(
  project: string,
  tarballs: Record<string, string>,
  listed: readonly string[],
): Promise<void> {
  const file = join(project, 'package.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as Record<
    'dependencies' | 'devDependencies',
    Record<string, string>
  > & { overrides?: Record<string, string> };
  const spec = (name: string): string => {
    if (!tarballs[name]) throw new Error(`no tarball of ${name}`);
    return `file:${tarballs[name]}`;
  };
  for (const field of ['dependencies', 'devDependencies'] as const) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (name.startsWith('@once/')) manifest[field][name] = spec(name);
    }
  }
  manifest.overrides = Object.fromEntries(listed.map((name) => [name, spec(name)]));
  await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Runs the built service (`node dist/main.js`, with the load recorder) until
 * its log says it is ready, then stops it with SIGTERM and waits for its exit.
 */
function runUntilReady(project: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', './record-loads.js', 'dist/main.js'], {
      cwd: project,
      env: environmentWithoutNpm(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stopped = false;
    const bound = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const watch = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (!stopped && /ready at op \d+/.test(output)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(bound);
      // NestJS's shutdown hooks end the process by the signal again once stopped.
      if (stopped && (code === 0 || signal === 'SIGTERM')) resolve();
      else reject(new Error(`the service ended with ${code ?? signal} before serving:\n${output}`));
    });
  });
}

/**
 * A `--require` hook: appends each module request of the process, once, with
 * the file it resolves to, to ONCE_LOADS_FILE as it happens (the service may
 * end by a signal, with no exit event).
 */
const RECORD_LOADS_JS = String.raw`'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (!seen.has(request)) {
    seen.add(request);
    let file = '';
    try {
      file = Module._resolveFilename(request, parent, isMain);
    } catch {}
    fs.appendFileSync(process.env.ONCE_LOADS_FILE, JSON.stringify([request, file]) + '\n');
  }
  return load.apply(this, arguments);
};
`;

/**
 * A team repository as strict as TypeScript lets it be about its
 * dependencies: CommonJS with the default module resolution (node10) and
 * every declaration file checked.
 */
const STRICT_TSCONFIG = `{
  "compilerOptions": {
    "module": "commonjs",
    "target": "ES2022",
    "lib": ["ES2022"],
    "types": ["node"],
    "strict": true,
    "skipLibCheck": false,
    "experimentalDecorators": true,
    "emitDecoratorMetadata": true,
    "noEmit": true
  },
  "files": ["src/main.ts", "src/counter.module.ts"]
}
`;

/** A team's main over its module, importing what a single-node team uses of once. */
const STRICT_MAIN_TS = String.raw`import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OnceModule } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { OnceClientProxy } from '@once/nest-client';
import { OnceClient } from '@once/sdk';
import { ServiceProcess } from '@once/testing';
import { UsersModule } from '@once/users';
import { CounterModule } from './counter.module';

@Module({
  imports: [
    OnceModule.forRoot({ dataDir: './data' }),
    UsersModule,
    CounterModule,
  ],
})
export class AppModule {}

export async function main(): Promise<void> {
  const app = await NestFactory.createMicroservice(AppModule, {
    strategy: new OnceServer({ port: 7700 }),
  });
  app.enableShutdownHooks();
  await app.listen();
}

export const tools = { OnceClient, OnceClientProxy, ServiceProcess };
`;

interface ScenarioService {
  first: unknown;
  second: unknown;
  where: unknown;
  exitCode: number | null;
}
interface ScenarioReport {
  loaded: Array<[string, number]>;
  resolved: Record<string, string>;
  js: ScenarioService;
  ts: ScenarioService;
}

/** A team's module in plain CommonJS, its decorators applied by hand. */
const COUNTER_MODULE_JS = String.raw`'use strict';
require('reflect-metadata');
const { Controller, Inject, Module } = require('@nestjs/common');
const { Command, Query, ReplicatedState } = require('@once/framework');

class CounterState {
  constructor() { this.total = 0; }
  toSnapshot() { return this.total; }
  fromSnapshot(snapshot) { this.total = snapshot; }
}
Reflect.decorate([ReplicatedState('counter')], CounterState);

class CounterController {
  constructor(counter) { this.counter = counter; }
  add(data) { this.counter.total += data.by; return { total: this.counter.total }; }
  where() { return { framework: require.resolve('@once/framework') }; }
}
Inject(CounterState)(CounterController, undefined, 0);
for (const [key, decorator] of [['add', Command('counter.add')], ['where', Query('counter.where')]]) {
  const descriptor = Object.getOwnPropertyDescriptor(CounterController.prototype, key);
  Object.defineProperty(CounterController.prototype, key,
    Reflect.decorate([decorator], CounterController.prototype, key, descriptor));
}
Reflect.decorate([Controller()], CounterController);

class CounterModule {}
Reflect.decorate([Module({ controllers: [CounterController], providers: [CounterState] })], CounterModule);
module.exports = { CounterModule };
`;

/** The same module as a team writes it in TypeScript. */
const COUNTER_MODULE_TS = String.raw`import { Controller, Module } from '@nestjs/common';
import { Command, type ModuleState, Query, ReplicatedState } from '@once/framework';

@ReplicatedState('counter')
export class CounterState implements ModuleState {
  total = 0;
  toSnapshot(): number {
    return this.total;
  }
  fromSnapshot(snapshot: unknown): void {
    this.total = snapshot as number;
  }
}

@Controller()
export class CounterController {
  constructor(private readonly counter: CounterState) {}

  @Command('counter.add')
  add(data: { by: number }): { total: number } {
    this.counter.total += data.by;
    return { total: this.counter.total };
  }

  @Query('counter.where')
  where(): { framework: string } {
    return { framework: require.resolve('@once/framework') };
  }
}

@Module({ controllers: [CounterController], providers: [CounterState] })
export class CounterModule {}
`;

/**
 * The team's check, run by a plain node in the project: loads every package,
 * then runs each module as a service with the installed @once/testing,
 * registers, commands twice, asks where the framework was loaded from, and
 * stops it gracefully. Prints one JSON line.
 */
const SCENARIO_JS = String.raw`'use strict';
const path = require('node:path');
const names = JSON.parse(process.argv[2]);
const loaded = names.map((name) => [name, Object.keys(require(name)).length]);
const resolved = Object.fromEntries(names.map((name) => [name, require.resolve(name)]));
const { RawClient, ServiceProcess, outcomeOf, registrationOf } = require('@once/testing');
const { randomClientId } = require('@once/protocol');

async function serve(modulePath) {
  const service = await ServiceProcess.start({
    modules: [{ path: modulePath, export: 'CounterModule' }],
    users: { alice: 'alice-pw' },
  });
  try {
    const raw = await RawClient.connect(service.port);
    const client = randomClientId();
    const { epoch } = registrationOf(await raw.register(client, 'alice', 'alice-pw'));
    const first = outcomeOf(await raw.command(client, epoch, 1, 'counter.add', { by: 2 }));
    const second = outcomeOf(await raw.command(client, epoch, 2, 'counter.add', { by: 3 }));
    const where = outcomeOf(await raw.query(client, epoch, 'counter.where', {}));
    raw.destroy();
    return { first, second, where, exitCode: await service.stop() };
  } catch (error) {
    throw new Error(String(error && error.stack) + '\n' + service.logs);
  } finally {
    await service.cleanup();
  }
}

(async () => {
  const js = await serve(path.join(__dirname, 'counter.module.js'));
  const ts = await serve(path.join(__dirname, 'src', 'counter.module.ts'));
  console.log(JSON.stringify({ loaded, resolved, js, ts }));
})().catch((error) => {
  console.error(String((error && error.stack) || error));
  process.exit(1);
});
`;
