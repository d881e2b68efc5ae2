import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskUsage } from './disk-usage';

describe('DiskUsage', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-disk-usage-'));
    await writeFile(join(dir, 'a.log'), Buffer.alloc(100));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('sums the sizes of the files of the directory', async () => {
    await writeFile(join(dir, 'b.ldb'), Buffer.alloc(23));
    expect(await new DiskUsage().of(dir)).toBe(123);
  });

  it('reuses a measurement younger than its maximum age, and measures again after', async () => {
    const cached = new DiskUsage(60_000);
    const fresh = new DiskUsage(0);
    expect(await cached.of(dir)).toBe(100);
    expect(await fresh.of(dir)).toBe(100);
    await writeFile(join(dir, 'b.ldb'), Buffer.alloc(50));
    expect(await cached.of(dir)).toBe(100);
    expect(await fresh.of(dir)).toBe(150);
  });

  it('says nothing for a directory it cannot read', async () => {
    expect(await new DiskUsage().of(join(dir, 'missing'))).toBeUndefined();
  });
});
