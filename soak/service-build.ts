import { cp } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';

/** The build of the service a soak run starts, restarts and verifies. */
export interface ServiceBuild {
  /** The service's entry in the copy. */
  readonly main: string;
  /** What the service needs in its environment to run from the copy. */
  readonly env: Readonly<Record<string, string>>;
}

/** dist/ of this build: this file is dist/soak/service-build.js. */
const DIST = resolve(__dirname, '..');

/**
 * Copies the service's build (dist/apps and dist/libs) into `dir`, so every
 * restart of a run and its final `--verify` run the build the run started
 * with: `nest build` empties dist/ first, and a rebuild during a run would
 * otherwise fail a restart, or mix two builds into one journal. NODE_PATH
 * points at the repository's node_modules, which the copy does not have
 * above it.
 */
export async function snapshotServiceBuild(dir: string): Promise<ServiceBuild> {
  await cp(join(DIST, 'apps'), join(dir, 'apps'), { recursive: true });
  await cp(join(DIST, 'libs'), join(dir, 'libs'), { recursive: true });
  const nodePath = [resolve(DIST, '..', 'node_modules'), process.env.NODE_PATH]
    .filter(Boolean)
    .join(delimiter);
  return { main: join(dir, 'apps', 'server', 'src', 'main.js'), env: { NODE_PATH: nodePath } };
}
