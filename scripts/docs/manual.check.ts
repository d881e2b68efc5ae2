import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHART_DIR, publishedResults, renderBenchPages } from './bench-pages';
import { tsBlocksOf, typeErrorsOf } from './code-examples';
import { ERROR_REFERENCE_PATH, renderErrorReference } from './error-reference';
import { checkLinks, manualFiles } from './markdown-links';
import { prettierMarkdown } from './prettier-markdown';
import { rewriteReadmeSettings } from '../settings-markdown';

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
  const current = existsSync(absolute) ? readFileSync(absolute, 'utf8') : '';
  const rendered = render(current);
  const wanted = path.endsWith('.md') ? prettierMarkdown(rendered, root, path) : rendered;
  if (write) {
    mkdirSync(dirname(absolute), { recursive: true });
    if (wanted !== current) writeFileSync(absolute, wanted);
    return;
  }
  if (wanted !== current) {
    throw new Error(`${path} differs from what the code generates: run \`npm run docs:generate\``);
  }
}

describe('the generated references', () => {
  it('docs/operating/configuration.md holds the settings table of the reference service (@once/settings and its own rows)', () => {
    generated('docs/operating/configuration.md', rewriteReadmeSettings);
  });

  it('docs/reference/errors.md is the error catalogue of @once/protocol', () => {
    generated(ERROR_REFERENCE_PATH, () => renderErrorReference());
  });

  it('docs/performance/measured.md and its charts are those of bench/results/published', () => {
    const files = renderBenchPages(publishedResults(root));
    for (const file of files) generated(file.path, () => file.text);
    const charts = join(root, CHART_DIR);
    const stale = existsSync(charts)
      ? readdirSync(charts)
          .map((name) => `${CHART_DIR}/${name}`)
          .filter((path) => !files.some((file) => file.path === path))
      : [];
    if (write) for (const path of stale) rmSync(join(root, path));
    else expect(stale).toEqual([]);
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
