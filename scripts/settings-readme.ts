import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rewriteReadmeSettings } from './settings-markdown';

/**
 * `npm run settings:readme`: rewrites the settings tables of
 * docs/operating/configuration.md (between its settings markers) from the
 * settings the reference service reads (libs/settings and
 * apps/server/src/config/server-settings.ts), so the configuration reference cannot
 * drift from the flags, variables and defaults the code uses.
 */
const readmePath = join(__dirname, '..', '..', 'docs', 'operating', 'configuration.md');
const before = readFileSync(readmePath, 'utf8');
const after = rewriteReadmeSettings(before);
if (after === before) {
  process.stdout.write('docs/operating/configuration.md: settings table already up to date\n');
} else {
  writeFileSync(readmePath, after);
  process.stdout.write('docs/operating/configuration.md: settings table rewritten\n');
}
