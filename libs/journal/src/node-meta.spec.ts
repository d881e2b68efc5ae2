import { ClassicLevel } from 'classic-level';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JournalStore } from './journal-store';
import { SUBLEVEL_NAMES } from './leveldb-layout';
import { FORMAT_VERSION } from './node-meta';
import { NodeSecretMismatchError } from './node-secret-mismatch.error';

/** Overwrites the raw meta record of a closed store's directory. */
async function writeRawMeta(dir: string, text: string): Promise<void> {
  const db = new ClassicLevel(join(dir, 'leveldb'));
  await db.open();
  try {
    await db.sublevel(SUBLEVEL_NAMES.meta).put('meta', text);
  } finally {
    await db.close();
  }
}

describe('JournalStore meta and node secret', () => {
  let parent: string;
  let dir: string;
  let store: JournalStore | undefined;

  async function open(): Promise<JournalStore> {
    store = await JournalStore.open(dir);
    return store;
  }

  async function closeStore(): Promise<void> {
    await store?.close();
    store = undefined;
  }

  beforeEach(async () => {
    parent = await fs.mkdtemp(join(tmpdir(), 'once-journal-meta-'));
    dir = join(parent, 'data');
  });

  afterEach(async () => {
    await closeStore();
    await fs.rm(parent, { recursive: true, force: true });
  });

  it('creates the directory (0700), the secret (0600) and the meta record', async () => {
    const before = Date.now();
    const opened = await open();
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    const secretFile = join(dir, 'node-secret');
    expect((await fs.stat(secretFile)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(secretFile)).toEqual(opened.nodeSecret);
    expect(opened.nodeSecret).toHaveLength(32);
    expect((await fs.readdir(dir)).sort()).toEqual(['leveldb', 'node-secret']);
    expect(opened.meta).toEqual({
      formatVersion: FORMAT_VERSION,
      createdAtMs: expect.any(Number) as number,
      secretFingerprint: createHash('sha256')
        .update(opened.nodeSecret)
        .digest()
        .subarray(0, 8)
        .toString('hex'),
      settings: null,
    });
    expect(opened.meta.createdAtMs).toBeGreaterThanOrEqual(before);
  });

  it('keeps the secret and meta across reopens; updateSettings persists', async () => {
    const first = await open();
    const { nodeSecret, meta } = first;
    await first.updateSettings({ ring: 8, lifetimeMs: 60_000 });
    expect(first.meta.settings).toEqual({ ring: 8, lifetimeMs: 60_000 });
    await closeStore();

    const second = await open();
    expect(second.nodeSecret).toEqual(nodeSecret);
    expect(second.meta).toEqual({ ...meta, settings: { ring: 8, lifetimeMs: 60_000 } });
    await expect(second.updateSettings(undefined)).rejects.toThrow(TypeError);
  });

  it('refuses a replaced secret file', async () => {
    const { nodeSecret } = await open();
    await closeStore();
    const secretFile = join(dir, 'node-secret');
    await fs.writeFile(secretFile, Buffer.alloc(32, 1), { mode: 0o600 });
    const error: unknown = await JournalStore.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeSecretMismatchError);
    expect(error).toMatchObject({ code: 'NODE_SECRET_MISMATCH' });
    expect((error as Error).message).toContain('fingerprint');
    // The failed open released the LevelDB lock: with the right secret back, it opens.
    await fs.writeFile(secretFile, nodeSecret);
    expect((await open()).nodeSecret).toEqual(nodeSecret);
  });

  it('refuses a missing or truncated secret file of an initialized directory', async () => {
    const { nodeSecret } = await open();
    await closeStore();
    const secretFile = join(dir, 'node-secret');
    await fs.rm(secretFile);
    await expect(JournalStore.open(dir)).rejects.toMatchObject({ code: 'NODE_SECRET_MISMATCH' });
    await fs.writeFile(secretFile, nodeSecret.subarray(0, 31));
    await expect(JournalStore.open(dir)).rejects.toMatchObject({ code: 'NODE_SECRET_MISMATCH' });
    await fs.writeFile(secretFile, nodeSecret);
    expect((await open()).nodeSecret).toEqual(nodeSecret);
  });

  it('adopts a secret provisioned before the first start', async () => {
    await fs.mkdir(dir, { mode: 0o700 });
    const provisioned = Buffer.alloc(32, 0x5a);
    await fs.writeFile(join(dir, 'node-secret'), provisioned, { mode: 0o600 });
    expect((await open()).nodeSecret).toEqual(provisioned);
  });

  it('refuses an unknown format version and an unreadable meta record', async () => {
    const { meta } = await open();
    await closeStore();
    await writeRawMeta(dir, JSON.stringify({ ...meta, formatVersion: FORMAT_VERSION + 1 }));
    await expect(JournalStore.open(dir)).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      formatVersion: FORMAT_VERSION + 1,
    });
    await writeRawMeta(dir, '{not json');
    await expect(JournalStore.open(dir)).rejects.toMatchObject({ code: 'META_CORRUPT' });
  });
});
