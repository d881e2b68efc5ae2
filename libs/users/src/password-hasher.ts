import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt cost parameters (RFC 7914): 16 MiB of memory per hash. */
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const HASH_BYTES = 32;
const SALT_BYTES = 16;

/** A salted scrypt hash as it is journaled: hex strings, no plaintext. */
export interface PasswordHash {
  readonly salt: string;
  readonly hash: string;
}

/**
 * Password hashing for the users module. It runs only at admission (never at
 * apply) because it is slow and, for new hashes, random.
 */
export class PasswordHasher {
  async hash(password: string): Promise<PasswordHash> {
    const salt = randomBytes(SALT_BYTES).toString('hex');
    return { salt, hash: await this.derive(password, salt) };
  }

  /** The hash of `password` under an existing salt (hex). */
  async derive(password: string, saltHex: string): Promise<string> {
    const key = await new Promise<Buffer>((resolve, reject) =>
      scrypt(password, Buffer.from(saltHex, 'hex'), HASH_BYTES, SCRYPT, (error, derived) =>
        error ? reject(error) : resolve(derived),
      ),
    );
    return key.toString('hex');
  }

  /** Constant-time check of `password` against a stored hash. */
  async verify(password: string, stored: PasswordHash): Promise<boolean> {
    const candidate = Buffer.from(await this.derive(password, stored.salt), 'hex');
    const expected = Buffer.from(stored.hash, 'hex');
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  }
}
