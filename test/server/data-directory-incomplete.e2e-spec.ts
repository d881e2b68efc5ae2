import { ClassicLevel } from 'classic-level';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServiceToExit } from '../support/wire';

/**
 * The state a power loss during the very first start could leave with
 * LevelDB 1.20 (classic-level 3), which does not sync the manifest before
 * CURRENT names it: CURRENT names an empty manifest, nothing was committed.
 */
async function neverCompletedDirectory(dir: string): Promise<void> {
  const leveldb = join(dir, 'leveldb');
  await fs.mkdir(dir, { recursive: true });
  const db = new ClassicLevel(leveldb);
  await db.open();
  await db.close();
  const manifest = (await fs.readFile(join(leveldb, 'CURRENT'), 'utf8')).trim();
  await fs.truncate(join(leveldb, manifest), 0);
}

describe('given a data directory whose first start was cut short (CURRENT names an empty manifest)', () => {
  let root: string;
  let dir: string;
  beforeAll(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'once-incomplete-'));
    dir = join(root, 'data');
    await neverCompletedDirectory(dir);
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));

  it.each([
    ['the service starts', [], {}],
    ['the service starts with JSON logs', [], { ONCE_LOG_FORMAT: 'json' }],
    ['--verify runs', ['--verify'], {}],
    ['--truncate-corrupt-tail runs', ['--truncate-corrupt-tail', '--yes'], {}],
  ])(
    'when %s, then it exits 1 naming the directory, how to recover, and the cause LevelDB gave',
    async (_when, args: string[], env: Record<string, string>) => {
      const { code, output } = await runServiceToExit(
        { ONCE_DATA_DIR: dir, ONCE_ADMIN_PASSWORD: 'pw', ...env },
        args,
      );
      expect(code).toBe(1);
      expect(output).toContain('DATA_DIR_INCOMPLETE');
      expect(output).toContain(dir);
      expect(output).toMatch(/holds no committed entry/);
      expect(output).toMatch(/cause: .*Corruption: no meta-nextfile entry in descriptor/);
      expect(output).not.toMatch(/\n\s+at /); // no stack trace
      expect(await fs.readdir(join(dir, 'leveldb'))).toContain('CURRENT'); // nothing deleted
    },
  );
});
