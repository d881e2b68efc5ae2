import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_DIR, buildApiReports } from './api-report';

/**
 * `npm run api:update`: rewrites `api/<package>.api.md` from the packages'
 * entry points (and deletes the report of a package that is gone). Commit
 * the result with the change that made it differ: the diff of these files is
 * the change of the API a reviewer reads.
 */
const { reports, unexported } = buildApiReports();
mkdirSync(API_DIR, { recursive: true });
let written = 0;
for (const [name, text] of reports) {
  const file = join(API_DIR, `${name}.api.md`);
  let before: string | undefined;
  try {
    before = readFileSync(file, 'utf8');
  } catch {
    before = undefined;
  }
  if (before !== text) {
    writeFileSync(file, text);
    written++;
    process.stdout.write(`api/${name}.api.md: rewritten\n`);
  }
}
for (const file of readdirSync(API_DIR)) {
  const name = file.replace(/\.api\.md$/, '');
  if (file.endsWith('.api.md') && !reports.has(name)) {
    rmSync(join(API_DIR, file));
    written++;
    process.stdout.write(`api/${file}: deleted (no such package)\n`);
  }
}
if (written === 0) process.stdout.write('api/: every report up to date\n');
for (const line of unexported) {
  process.stdout.write(`warning: a public signature names an unexported type: ${line}\n`);
}
