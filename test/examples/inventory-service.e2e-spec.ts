import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/node-program';
import { buildPackages, packWorkspaces } from '../support/packed-workspaces';
import { copyExample, pointAtTarballs } from './support/example-project';
import { expectSucceeded, runInProject } from './support/project-command';

const EXAMPLE = join(ROOT, 'examples', 'inventory-service');

/**
 * Bounds of each step (install; type-check or build; tests): a hang fails with its output.
 * The example's spec files start and crash services of their own, one file at a time; on a
 * loaded two-core machine they take two minutes and more.
 */
const INSTALL_BOUND_MS = 180_000;
const COMPILE_BOUND_MS = 90_000;
const TESTS_BOUND_MS = 360_000;

/**
 * examples/inventory-service is a team's repository: it sees once only as
 * the packed @once/* packages, installed like any npm dependency, in a
 * directory outside the monorepo (so no path of the monorepo, and none of
 * its node_modules, can be reached). Its own type-check and its own e2e
 * tests must pass there, exactly as its README tells a team to run them.
 */
describe('given the example team repository, with nothing of once but the packed packages', () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'once-example-'));
    project = join(work, 'inventory-service');
    await buildPackages();
    const tarballs = join(work, 'tarballs');
    await mkdir(tarballs);
    const packed = await packWorkspaces(tarballs);
    await copyExample(EXAMPLE, project);
    await pointAtTarballs(project, new Map(Object.entries(packed)));
  }, 300_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('when it is installed, type-checked, built and tested on its own, then each step succeeds', async () => {
    expectSucceeded(
      await runInProject(
        project,
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'],
        INSTALL_BOUND_MS,
      ),
    );
    expectSucceeded(
      await runInProject(project, 'npx', ['tsc', '--noEmit', '-p', '.'], COMPILE_BOUND_MS),
    );
    expectSucceeded(await runInProject(project, 'npm', ['run', 'build'], COMPILE_BOUND_MS));
    expectSucceeded(await runInProject(project, 'npx', ['jest'], TESTS_BOUND_MS));
  }, 660_000);
});
