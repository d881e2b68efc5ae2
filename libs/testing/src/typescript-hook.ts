import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root: the nearest ancestor of this file with nest-cli.json. */
export function findRepositoryRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 10; i++) {
    if (existsSync(join(dir, 'nest-cli.json'))) return dir;
    dir = resolve(dir, '..');
  }
  return process.cwd();
}

/**
 * Writes (once per process) a require hook that lets a plain `node` child run
 * the repository's TypeScript sources: transpile only, decorators with their
 * metadata, and the `@once/<lib>` aliases mapped like the jest config does.
 * Returns its path, for `node -r <path> entry.ts`.
 */
export async function typescriptHookFile(root = findRepositoryRoot()): Promise<string> {
  const file = join(tmpdir(), `once-ts-hook-${process.pid}.js`);
  await writeFile(file, TS_HOOK.replace('__ROOT__', JSON.stringify(root)));
  return file;
}

const TS_HOOK = String.raw`'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const root = __ROOT__;
const ts = require(require.resolve('typescript', { paths: [root] }));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@once\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, alias ? path.join(root, 'libs', alias[1], 'src') : request, ...rest);
};
require.extensions['.ts'] = (module, filename) => {
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
`;
