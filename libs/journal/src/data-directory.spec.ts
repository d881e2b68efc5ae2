import { neverCompletedDataDirectory } from '@once/testing';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { JournalStore } from './journal-store';

function causes(error: unknown): string[] {
  const messages: string[] = [];
  for (let current = error; typeof current === 'object' && current !== null;) {
    messages.push(String((current as { message?: unknown }).message));
    current = (current as { cause?: unknown }).cause;
  }
  return messages;
}

describe('data directory creation', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'once-datadir-'));
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('when the directory is new, then it appears complete (meta and secret), mode 0700, with no sibling left', async () => {
    const dir = join(root, 'data');
    const store = await JournalStore.open(dir);
    await store.close();
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    expect(await fs.readdir(dir)).toEqual(['leveldb', 'node-secret']);
    expect(await fs.readdir(root)).toEqual(['data']);
    const reopened = await JournalStore.open(dir);
    expect(reopened.nodeSecret.equals(store.nodeSecret)).toBe(true);
    expect(reopened.meta).toEqual(store.meta);
    await reopened.close();
  });

  it('when a creation was cut short, then its leftover sibling is removed at the next start, and said so', async () => {
    const dir = join(root, 'data');
    // Above Linux's highest pid: the process that left it is surely gone.
    const leftover = join(root, `.${basename(dir)}.creating-4194305-0badcafe`);
    await fs.mkdir(join(leftover, 'leveldb'), { recursive: true });
    await fs.writeFile(join(leftover, 'node-secret'), Buffer.alloc(7));
    const notices: string[] = [];
    const store = await JournalStore.open(dir, { notice: (message) => notices.push(message) });
    await store.close();
    expect(await fs.readdir(root)).toEqual(['data']);
    expect(notices).toEqual([expect.stringContaining(`removed ${leftover}`)]);
    expect(dirname(leftover)).toBe(root);
  });

  it('when CURRENT names an empty manifest and nothing was committed, then it refuses with DATA_DIR_INCOMPLETE, says how to recover and deletes nothing', async () => {
    const dir = join(root, 'data');
    const manifest = await neverCompletedDataDirectory(dir);
    const before = await fs.readdir(join(dir, 'leveldb'));
    const error = await JournalStore.open(dir).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ code: 'DATA_DIR_INCOMPLETE', dir });
    const message = (error as Error).message;
    expect(message).toContain(dir);
    expect(message).toContain(manifest);
    expect(message).toMatch(/holds no committed entry/);
    expect(message).toMatch(/remove/);
    expect(causes(error).join('\n')).toMatch(/Corruption: no meta-nextfile entry in descriptor/);
    // Nothing deleted (LevelDB itself rotates its info LOG to LOG.old on each attempt).
    expect(await fs.readdir(join(dir, 'leveldb'))).toEqual(expect.arrayContaining(before));
  });
});
