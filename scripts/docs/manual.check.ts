import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rewriteReadmeSettings } from '@once/settings';
import { tsBlocksOf, typeErrorsOf } from './code-examples';
import { ERROR_REFERENCE_PATH, renderErrorReference } from './error-reference';
import { checkLinks, manualFiles } from './markdown-links';
import { prettierMarkdown } from './prettier-markdown';

/**
 * `npm run docs:check`: the manual is true to the repository. Each test fails
 * naming what differs and how to mend it. `npm run docs:generate` runs the
 * same file with DOCS_WRITE=1, which writes each generated page instead of
 * comparing it.
 */
const root = join(__dirname, '..', '..');
const write = process.env.DOCS_WRITE === '1';

/** Compares (or, with DOCS_WRITE=1, writes) one generated page. */
function generated(path: string, render: (current: string) => string): void {
  const absolute = join(root, path);
  const current = readFileSync(absolute, 'utf8');
  const wanted = prettierMarkdown(render(current), root, path);
  if (write) {
    if (wanted !== current) writeFileSync(absolute, wanted);
    return;
  }
  if (wanted !== current) {
    throw new Error(`${path} differs from what the code generates: run \`npm run docs:generate\``);
  }
}

describe('the generated references', () => {
  it('docs/operating/configuration.md holds the settings table of @once/settings', () => {
    generated('docs/operating/configuration.md', rewriteReadmeSettings);
  });

  it('docs/reference/errors.md is the error catalogue of @once/protocol', () => {
    generated(ERROR_REFERENCE_PATH, () => renderErrorReference());
  });
});

describe('the manual', () => {
  it('has no relative link or anchor that does not resolve', () => {
    const broken = checkLinks(root, manualFiles(root)).map(
      ({ file, line, target, reason }) => `${file}:${line}: (${target}) ${reason}`,
    );
    expect(broken).toEqual([]);
  });
});

describe("the README's code examples", () => {
  it('type-check against the workspace packages', () => {
    const blocks = tsBlocksOf(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    const errors = typeErrorsOf(
      root,
      blocks.map(({ line, code }) => ({ name: `README.md-line-${line}`, code })),
    );
    expect(errors).toEqual([]);
  });
});
