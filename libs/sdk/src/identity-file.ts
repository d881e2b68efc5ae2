import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IdentityFileCorruptError } from './errors/identity-file-corrupt.error';
import { decodeIdentityRecord, encodeIdentityRecord, type IdentityRecord } from './identity-record';

/**
 * The temporary file a write goes through. A leftover one (a crash between
 * write and rename) is never read: only `path` itself is the identity.
 */
export function identityTempPath(path: string): string {
  return `${path}.tmp`;
}

/**
 * Reads the identity file at `path`: the record, `undefined` when there is no
 * file, or {@link IdentityFileCorruptError} when it cannot be trusted.
 */
export async function readIdentityFile(path: string): Promise<IdentityRecord | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const decoded = decodeIdentityRecord(text);
  if (typeof decoded === 'string') throw new IdentityFileCorruptError(path, decoded);
  return decoded;
}

/**
 * Replaces the identity file atomically and durably: write a temporary file,
 * fsync it, rename it over `path`, fsync the directory.
 *
 * Why each step: the rename makes a reader see either the old or the new file,
 * never a torn one; the first fsync makes the new contents reach the disk
 * before the rename can; the directory fsync makes the rename itself survive a
 * power loss. Only then may a command recorded in it be sent.
 */
export async function writeIdentityFile(path: string, record: IdentityRecord): Promise<void> {
  const temp = identityTempPath(path);
  const file = await open(temp, 'w', 0o600);
  try {
    await file.writeFile(encodeIdentityRecord(record), 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  await syncDirectory(dirname(path));
}

/** Removes the identity file (after a logout: there is no session left to resume). */
export async function removeIdentityFile(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(identityTempPath(path), { force: true });
  await syncDirectory(dirname(path));
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms (and file systems) refuse fsync on a directory; the rename stands.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw error;
  } finally {
    await handle.close();
  }
}
