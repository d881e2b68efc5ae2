import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import { NodeSecretMismatchError } from './node-secret-mismatch.error';

/** Size of the node secret (the HMAC key of resume tokens). */
export const NODE_SECRET_BYTES = 32;

/** Owner read/write only: the secret lets anyone mint resume tokens. */
const SECRET_FILE_MODE = 0o600;

/**
 * Reads the node secret, or returns `undefined` when the file does not exist.
 * A file of the wrong size throws {@link NodeSecretMismatchError}.
 */
export async function readNodeSecret(file: string): Promise<Buffer | undefined> {
  let secret: Buffer;
  try {
    secret = await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (secret.byteLength !== NODE_SECRET_BYTES) {
    throw new NodeSecretMismatchError(
      file,
      `it holds ${secret.byteLength} bytes, a node secret is ${NODE_SECRET_BYTES}`,
    );
  }
  return secret;
}

/**
 * Creates a new random node secret at `file` (mode 0600) and makes it durable.
 *
 * Written to a temporary file first, synced, then hard-linked into place: the
 * link is the exclusive create (EEXIST if a secret appeared meanwhile), and a
 * crash at any point leaves either no secret file or a complete one, never a
 * torn one that would block the next start. Callers hold the LevelDB lock, so
 * no other process of this store races on the temporary file.
 */
export async function createNodeSecret(file: string): Promise<Buffer> {
  const secret = randomBytes(NODE_SECRET_BYTES);
  const temporary = `${file}.tmp`;
  await fs.rm(temporary, { force: true });
  const handle = await fs.open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    SECRET_FILE_MODE,
  );
  try {
    await handle.writeFile(secret);
    // The umask could only have removed bits, but make the mode exact anyway.
    await handle.chmod(SECRET_FILE_MODE);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.link(temporary, file);
  await fs.rm(temporary);
  await syncDirectory(dirname(file));
  return secret;
}

/** fsync of a directory, so a file created in it survives a power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
