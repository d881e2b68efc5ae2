import { createHash, timingSafeEqual } from 'node:crypto';
import { type OnceAuthenticator } from '@once/framework';

/**
 * An authenticator for tests: a fixed list of users, ids 1, 2, … in the order
 * given. Compares SHA-256 digests in constant time. Not for production: the
 * passwords live in memory in the clear.
 */
export class StaticAuthenticator implements OnceAuthenticator {
  private readonly users: Array<{ username: string; digest: Buffer }>;

  constructor(users: Readonly<Record<string, string>>) {
    this.users = Object.entries(users).map(([username, password]) => ({
      username,
      digest: digest(password),
    }));
  }

  authenticate(username: string, password: string): Promise<number | undefined> {
    const candidate = digest(password);
    const index = this.users.findIndex((user) => user.username === username);
    const expected = index >= 0 ? this.users[index].digest : digest('\u0000');
    const valid = timingSafeEqual(candidate, expected) && index >= 0;
    return Promise.resolve(valid ? index + 1 : undefined);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
