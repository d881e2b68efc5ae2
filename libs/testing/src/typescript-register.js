'use strict';
/* global process, __dirname */

/**
 * A require hook that lets a plain `node` run TypeScript files: preload it
 * with `node -r @once/testing/typescript-register entry.ts` (ServiceProcess
 * does so when an entry or a module is a `.ts` file).
 *
 * It transpiles each file alone (no type checking, no tsconfig read) to
 * CommonJS ES2022 with decorators and their metadata on, which is what NestJS
 * modules need. The compiler is the project's own `typescript`, looked up from
 * the directory of the first `.ts` file loaded, then from the working
 * directory, so no compiler ships with this package. A project that needs its
 * tsconfig honoured (paths, other targets) passes its own loader instead
 * (ServiceProcess's `loader` option, e.g. `ts-node/register`).
 *
 * Only inside the once repository itself (this file is not under a
 * node_modules directory and its root holds nest-cli.json, libs/ and a
 * package.json named `once`) are the `@once/<lib>` imports mapped to
 * `libs/<lib>/src` (and `@once/<lib>/internal` to `libs/<lib>/src/internal.ts`), like the repository's jest and tsc configs do.
 *
 * Plain JavaScript on purpose: it must load in a bare `node` before any
 * TypeScript can.
 */

const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');

/** How far up from this file the repository root is looked for. */
const ANCESTORS_MAX = 6;

/** The once repository's root when this file is part of its sources, else undefined. */
function onceRepositoryRoot() {
  let dir = __dirname;
  for (let i = 0; i < ANCESTORS_MAX; i++) {
    if (path.basename(dir) === 'node_modules') return undefined;
    if (isOnceRepository(dir)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

function isOnceRepository(dir) {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return (
      manifest.name === 'once' &&
      fs.existsSync(path.join(dir, 'nest-cli.json')) &&
      fs.existsSync(path.join(dir, 'libs'))
    );
  } catch {
    return false;
  }
}

let typescript;

/** The project's TypeScript compiler, resolved once, from the first file compiled. */
function compiler(filename) {
  if (typescript) return typescript;
  const from = [path.dirname(filename), process.cwd(), __dirname];
  let resolved;
  try {
    resolved = require.resolve('typescript', { paths: from });
  } catch {
    throw new Error(
      `cannot load ${filename}: the package "typescript" is not installed where it or the ` +
        `working directory can see it; install it (npm install --save-dev typescript), ` +
        `or give compiled .js files, or a loader of your own`,
    );
  }
  const loaded = require(resolved);
  if (typeof loaded.transpileModule !== 'function') {
    throw new Error(
      `cannot load ${filename}: the typescript at ${resolved} has no transpileModule API; ` +
        `give compiled .js files, or a loader of your own`,
    );
  }
  typescript = loaded;
  return typescript;
}

const root = onceRepositoryRoot();
if (root !== undefined) {
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const alias = /^@once\/([a-z-]+)(\/internal)?$/.exec(request);
    const sources =
      alias && path.join(root, 'libs', alias[1], 'src', alias[2] ? 'internal.ts' : '');
    const target = sources && fs.existsSync(sources) ? sources : request;
    return resolveFilename.call(this, target, ...rest);
  };
}

require.extensions['.ts'] = (module, filename) => {
  const ts = compiler(filename);
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      sourceMap: false,
    },
  });
  module._compile(outputText, filename);
};
