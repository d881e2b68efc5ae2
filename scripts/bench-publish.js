#!/usr/bin/env node
'use strict';
/* global process */
/**
 * `npm run bench:publish -- <name> [file]`: keeps a bench run in the
 * repository, as bench/results/published/<name>.json (from
 * bench/results/latest.json unless a file is given), so the performance
 * pages are generated from it (`npm run docs:generate`, which this runs).
 * A run that does not say the commit it measured is refused: a figure
 * without its version cannot be compared with anything.
 */
const { copyFileSync, mkdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { execFileSync } = require('node:child_process');

const [name, file = join('bench', 'results', 'latest.json')] = process.argv.slice(2);
if (!name || !/^[a-z0-9-]+$/.test(name)) {
  process.stderr.write('usage: npm run bench:publish -- <name: a-z, 0-9, -> [results.json]\n');
  process.exit(2);
}
const document = JSON.parse(readFileSync(file, 'utf8'));
if (!document.environment || !document.environment.commit) {
  process.stderr.write(`${file} does not say the commit it was measured on; run the bench again\n`);
  process.exit(1);
}
const dir = join('bench', 'results', 'published');
mkdirSync(dir, { recursive: true });
copyFileSync(file, join(dir, `${name}.json`));
process.stdout.write(`published ${file} as ${join(dir, `${name}.json`)}\n`);
execFileSync('npm', ['run', 'docs:generate'], { stdio: 'inherit' });
