'use strict';
/* global console, process, __dirname */

/**
 * Builds every workspace package into its `libs/<name>/dist` (`npm run
 * build:packages`; extra arguments go to `tsc -b`, e.g. `--verbose`).
 *
 * `tsc -b tsconfig.packages.json` compiles them in dependency order and skips
 * the ones that are up to date, but never deletes an output whose source is
 * gone: a renamed or removed file would stay in dist and be packed. So first
 * every output in a dist without its source in src is deleted.
 */

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { workspaces } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** The source a dist file was compiled from, by name: `a/b.js` and `a/b.d.ts` come from `a/b.ts` or `a/b.js`. */
function hasSource(packageDir, relative) {
  const base = relative.replace(/(\.d\.ts|\.js)$/, '');
  if (base === relative) return true;
  return ['.ts', '.js'].some((extension) =>
    fs.existsSync(path.join(packageDir, 'src', base + extension)),
  );
}

/** Deletes the outputs without a source under `dir` (inside `packageDir/dist`); returns how many. */
function prune(packageDir, dir = path.join(packageDir, 'dist')) {
  if (!fs.existsSync(dir)) return 0;
  let deleted = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      deleted += prune(packageDir, file);
      if (fs.readdirSync(file).length === 0) fs.rmdirSync(file);
    } else if (!hasSource(packageDir, path.relative(path.join(packageDir, 'dist'), file))) {
      fs.unlinkSync(file);
      deleted++;
    }
  }
  return deleted;
}

for (const workspace of workspaces) {
  const deleted = prune(path.join(root, workspace));
  if (deleted > 0) console.log(`${workspace}: ${deleted} stale output(s) deleted from dist`);
}

const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
const build = spawnSync(
  process.execPath,
  [tsc, '-b', path.join(root, 'tsconfig.packages.json'), ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
if (build.status === 0) linkBins();
process.exit(build.status ?? 1);

/**
 * Links each workspace's `bin` into the root `node_modules/.bin`, as npm
 * does for a dependency: at `npm ci` the outputs did not exist yet, so npm
 * linked none, and `npx once` in this repository found nothing to run.
 */
function linkBins() {
  const binDir = path.join(root, 'node_modules', '.bin');
  for (const workspace of workspaces) {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(root, workspace, 'package.json'), 'utf8'),
    );
    for (const [name, target] of Object.entries(manifest.bin ?? {})) {
      const file = path.join(root, workspace, target);
      if (!fs.existsSync(file)) continue;
      fs.chmodSync(file, fs.statSync(file).mode | 0o111);
      const link = path.join(binDir, name);
      const relativeTarget = path.relative(
        binDir,
        path.join(root, 'node_modules', manifest.name, target),
      );
      fs.mkdirSync(binDir, { recursive: true });
      if (fs.lstatSync(link, { throwIfNoEntry: false })) {
        if (fs.readlinkSync(link) === relativeTarget) continue;
        fs.unlinkSync(link);
      }
      fs.symlinkSync(relativeTarget, link);
    }
  }
}
