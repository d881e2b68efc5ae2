import { neverCompletedDataDirectory } from '@once/testing';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServiceToExit } from '../support/wire';

describe('given a data directory whose first start was cut short (CURRENT names an empty manifest)', () => {
  let root: string;
  let dir: string;
  beforeAll(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'once-incomplete-'));
    dir = join(root, 'data');
    await neverCompletedDataDirectory(dir);
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
