import { ClassicLevel } from 'classic-level';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes `dir` what a power loss during the very first start of a data
 * directory could leave with LevelDB 1.20 (classic-level 3), which does not
 * sync the manifest before CURRENT names it: CURRENT names an empty
 * manifest, and nothing was committed. Resolves with the manifest's name.
 */
export async function neverCompletedDataDirectory(dir: string): Promise<string> {
  const leveldb = join(dir, 'leveldb');
  await fs.mkdir(dir, { recursive: true });
  const db = new ClassicLevel(leveldb);
  await db.open();
  await db.close();
  const manifest = (await fs.readFile(join(leveldb, 'CURRENT'), 'utf8')).trim();
  await fs.truncate(join(leveldb, manifest), 0);
  return manifest;
}
