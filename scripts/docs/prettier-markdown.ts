import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * `markdown` as `prettier --write` would leave it at `path` (relative to
 * `root`), so a generated page passes `prettier --check` and compares byte
 * for byte with the committed one. Prettier runs as a child process: its
 * module loads itself with dynamic imports, which jest's module system does
 * not run.
 */
export function prettierMarkdown(markdown: string, root: string, path: string): string {
  return execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--stdin-filepath', path],
    { cwd: root, input: markdown, encoding: 'utf8' },
  );
}
