import { cp } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The build the bench runs: dist/, as it was when the bench started. */
export interface BuildSnapshot {
  /** The copy of dist/ (holds bench/, apps/, libs/). */
  readonly dir: string;
  /** The repository's node_modules, for modules the copy requires. */
  readonly nodeModules: string;
}

/** dist/ of this build: this file is dist/bench/build-snapshot.js. */
const DIST = resolve(__dirname, '..');

/**
 * Copies dist/ into `workDir` and runs every child from the copy, so that a
 * rebuild during a long bench (`nest build` empties dist/ first) neither
 * breaks it nor mixes two builds into one set of figures.
 */
export async function snapshotBuild(workDir: string): Promise<BuildSnapshot> {
  const dir = join(workDir, 'dist');
  await cp(DIST, dir, { recursive: true });
  return { dir, nodeModules: resolve(DIST, '..', 'node_modules') };
}

/** The path of a bench child entry in the snapshot: `bench/<name>.js`. */
export function benchScript(build: BuildSnapshot, name: string): string {
  return join(build.dir, 'bench', `${name}.js`);
}

/** The reference service's entry in the snapshot. */
export function serviceMain(build: BuildSnapshot): string {
  return join(build.dir, 'apps', 'server', 'src', 'main.js');
}
