/**
 * Checks REGISTER credentials. The application provides it under the
 * `ONCE_AUTHENTICATOR` token (the reference service's users module does).
 *
 * It runs live, at admission, never at apply: it may be slow (a password hash)
 * and must compare in constant time. Only the user id it returns is journaled.
 */
export interface OnceAuthenticator {
  /** The user id for valid credentials of an enabled user; `undefined` otherwise. */
  authenticate(username: string, password: string): Promise<number | undefined>;
}
