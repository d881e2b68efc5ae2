import { cp, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** What a copy of an example leaves behind: whatever a local install, build or run made. */
const LOCAL_ONLY = new Set(['node_modules', 'dist', 'data', 'coverage', 'package-lock.json']);

/**
 * Copies the example repository at `source` to `target` as a team would
 * clone it: its sources, tests and configuration, without what a local
 * install, build or run left in it.
 */
export async function copyExample(source: string, target: string): Promise<void> {
  await cp(source, target, {
    recursive: true,
    filter: (path) => path === source || !LOCAL_ONLY.has(basename(path)),
  });
}

/** The manifest fields this module reads and writes. */
interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
}

/**
 * Points the project's `@once/*` dependencies (declared by version, as if
 * published) at packed tarballs: each declared one becomes `file:<tarball>`,
 * and an override sends every `@once/*` package (the ones the packages
 * depend on among themselves included) to its tarball, so nothing of once
 * is looked up in the registry. Fails if the project declares a package
 * with no tarball.
 */
export async function pointAtTarballs(
  project: string,
  tarballs: ReadonlyMap<string, string>,
): Promise<void> {
  const file = join(project, 'package.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as Manifest;
  const spec = (name: string): string => {
    const tarball = tarballs.get(name);
    if (!tarball) throw new Error(`${project} depends on ${name}, which was not packed`);
    return `file:${tarball}`;
  };
  for (const field of ['dependencies', 'devDependencies'] as const) {
    const declared = manifest[field] ?? {};
    for (const name of Object.keys(declared)) {
      if (name.startsWith('@once/')) declared[name] = spec(name);
    }
  }
  manifest.overrides = {
    ...manifest.overrides,
    ...Object.fromEntries([...tarballs.keys()].map((name) => [name, spec(name)])),
  };
  await writeFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
