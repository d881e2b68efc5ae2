import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type OnceAuthenticator } from '@once/framework';
import { type CallerAccounts } from './caller-accounts';

/** Injection token of the caller accounts. */
export const CALLER_ACCOUNTS = Symbol('CALLER_ACCOUNTS');

/** Compared against when the username is unknown, so both paths do the same work. */
const NO_SECRET = Buffer.alloc(32);

/**
 * Checks the credentials of a REGISTER: the username names a caller account,
 * the password is its secret. once calls it live, at admission, and journals
 * only the user id it returns, so the secrets never reach the journal.
 *
 * The secrets are long random tokens, not passwords people choose, so one
 * SHA-256 is enough to keep them out of the configuration (a slow password
 * hash such as scrypt is for secrets that can be guessed).
 */
@Injectable()
export class CallerAuthenticator implements OnceAuthenticator {
  constructor(@Inject(CALLER_ACCOUNTS) private readonly accounts: CallerAccounts) {}

  authenticate(username: string, password: string): Promise<number | undefined> {
    const account = this.accounts.get(username);
    const expected = account ? Buffer.from(account.secretSha256, 'hex') : NO_SECRET;
    const given = createHash('sha256').update(password, 'utf8').digest();
    const valid = timingSafeEqual(given, expected) && account !== undefined;
    return Promise.resolve(valid ? account.userId : undefined);
  }
}
