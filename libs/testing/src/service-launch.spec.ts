import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  isOnceRepository,
  launchCommand,
  moduleServiceEntry,
  onceRepositoryRoot,
  typescriptRegisterFile,
} from './service-launch';
import { ServiceStartError } from './service-start.error';

const REPOSITORY = resolve(__dirname, '../../..');
/** As installed in a team's node_modules: no once repository around. */
const OUTSIDE = { repository: undefined };

describe('the command of a service child process', () => {
  it('finds the once repository it runs in, and its sources', () => {
    expect(onceRepositoryRoot()).toBe(REPOSITORY);
    expect(moduleServiceEntry()).toBe(join(__dirname, 'module-service.main.ts'));
    expect(typescriptRegisterFile()).toBe(join(__dirname, 'typescript-register.js'));
  });

  it('takes only a directory with nest-cli.json, libs/ and a package.json named once for the repository', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'once-launch-'));
    try {
      await writeFile(join(dir, 'nest-cli.json'), '{}');
      await mkdir(join(dir, 'libs'));
      await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'team-service' }));
      expect(isOnceRepository(dir)).toBe(false);
      await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'once' }));
      expect(isOnceRepository(dir)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs the reference service by default inside the repository', () => {
    expect(launchCommand({}, { repository: REPOSITORY })).toEqual({
      cwd: REPOSITORY,
      nodeArgs: [],
      entry: join(REPOSITORY, 'dist/apps/server/src/main.js'),
    });
  });

  it('outside the repository, refuses to guess: it asks for modules or an entry', () => {
    const refusal = (() => {
      try {
        launchCommand({}, OUTSIDE);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ServiceStartError);
    expect((refusal as ServiceStartError).message).toMatch(/needs `modules`.*or `entry`/);
  });

  it('resolves a relative entry against root, the working directory of the child', () => {
    expect(launchCommand({ root: '/srv/team', entry: 'dist/main.js' }, OUTSIDE)).toEqual({
      cwd: '/srv/team',
      nodeArgs: [],
      entry: '/srv/team/dist/main.js',
    });
  });

  it('preloads the TypeScript hook only when the entry or a module is a .ts file', () => {
    const hook = ['-r', typescriptRegisterFile()];
    expect(launchCommand({ entry: '/srv/team/main.ts' }, OUTSIDE).nodeArgs).toEqual(hook);
    const compiled = { modules: [{ path: '/srv/team/dist/app.module.js', export: 'AppModule' }] };
    // From these sources the module service itself is TypeScript; installed, it is not.
    expect(launchCommand(compiled, OUTSIDE).entry).toBe(moduleServiceEntry());
    const typescript = { modules: [{ path: '/srv/team/src/app.module.ts', export: 'AppModule' }] };
    expect(launchCommand(typescript, OUTSIDE).nodeArgs).toEqual(hook);
  });

  it('preloads the given loader instead of the hook', () => {
    expect(
      launchCommand({ entry: '/srv/team/main.ts', loader: 'ts-node/register' }, OUTSIDE).nodeArgs,
    ).toEqual(['-r', 'ts-node/register']);
  });
});
