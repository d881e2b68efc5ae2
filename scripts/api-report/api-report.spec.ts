import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  API_DIR,
  API_UPDATE_COMMAND,
  type ApiReports,
  REPOSITORY_ROOT,
  buildApiReports,
  packageEntries,
} from './api-report';

/** The first line where `a` and `b` differ, 1-based, with both versions. */
function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) {
      return `line ${i + 1}: committed ${JSON.stringify(left[i] ?? '(none)')}, code ${JSON.stringify(right[i] ?? '(none)')}`;
    }
  }
  return 'same lines';
}

describe('the API report (api/<package>.api.md)', () => {
  let built: ApiReports;

  beforeAll(() => {
    built = buildApiReports();
  }, 180_000);

  it('given the packages’ entry points, when the report is built, then every committed report matches the code', () => {
    const stale: string[] = [];
    for (const [name, text] of built.reports) {
      const file = join(API_DIR, `${name}.api.md`);
      if (!existsSync(file)) {
        stale.push(`api/${name}.api.md is missing`);
        continue;
      }
      const committed = readFileSync(file, 'utf8');
      if (committed !== text) {
        stale.push(
          `api/${name}.api.md differs from libs/${name}/src (${firstDifference(committed, text)})`,
        );
      }
    }
    for (const file of existsSync(API_DIR) ? readdirSync(API_DIR) : []) {
      if (file.endsWith('.api.md') && !built.reports.has(file.replace(/\.api\.md$/, ''))) {
        stale.push(`api/${file} reports a package that does not exist`);
      }
    }
    if (stale.length > 0) {
      throw new Error(
        `The packages' API changed:\n  ${stale.join('\n  ')}\n` +
          `If the change is meant, run \`${API_UPDATE_COMMAND}\` and commit api/ with it: ` +
          'the diff of api/ is what a reviewer checks of the public surface.',
      );
    }
  });

  it('given OnceRuntime, whose members for the sibling packages are marked @internal, then the report marks them and does not count the types they name as showing through', () => {
    const framework = built.reports.get('framework') ?? '';
    expect(framework).toContain('  /** @internal */ readonly engine: Engine;');
    expect(framework).toContain('  whenReady(): Promise<void>;');
    expect(framework).not.toContain('  /** @internal */ whenReady');
    const throughRuntime = built.unexported.filter((line) =>
      line.endsWith("@once/framework's OnceRuntime"),
    );
    expect(throughRuntime).toEqual([]);
  });

  it('given the public roots, then no declaration is exported by two of them (one import path per name)', () => {
    const twice = [...built.publicRoots]
      .filter(([, roots]) => roots.length > 1)
      .map(([name, roots]) => `${name}: ${roots.join(', ')}`);
    expect(twice).toEqual([]);
  });

  it('given a package with an internal entry, then its exports, typesVersions, tsconfig paths and jest mapping reach it', () => {
    const tsconfig = readFileSync(join(REPOSITORY_ROOT, 'tsconfig.json'), 'utf8');
    const problems: string[] = [];
    for (const entry of packageEntries()) {
      const manifest = JSON.parse(
        readFileSync(join(REPOSITORY_ROOT, 'libs', entry.name, 'package.json'), 'utf8'),
      ) as {
        exports: Record<string, unknown>;
        typesVersions?: Record<string, Record<string, string[]>>;
      };
      const exported = './internal' in manifest.exports;
      if (Boolean(entry.internal) !== exported) {
        problems.push(
          `${entry.name}: src/internal.ts ${entry.internal ? 'exists' : 'is absent'}, "exports" ${exported ? 'has' : 'lacks'} "./internal"`,
        );
      }
      if (!entry.internal) continue;
      if (manifest.typesVersions?.['*']?.internal?.[0] !== 'dist/internal.d.ts') {
        problems.push(
          `${entry.name}: no typesVersions for "internal" (moduleResolution node10 ignores "exports")`,
        );
      }
      if (
        !tsconfig.includes(`"@once/${entry.name}/internal": ["libs/${entry.name}/src/internal"]`)
      ) {
        problems.push(`${entry.name}: tsconfig.json paths lack @once/${entry.name}/internal`);
      }
    }
    expect(problems).toEqual([]);
  });
});
