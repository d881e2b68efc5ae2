import { operationsTokenOf } from '@once/cli/internal';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeBasicCredentials } from '../basic-credentials';

/** The shortest credential accepted: shorter ones are guessable through the port. */
export const OPERATIONS_TOKEN_LENGTH_MIN = 16;

/** What `WWW-Authenticate` names: the token is sent as a bearer token, or as basic auth's password. */
export const OPERATIONS_AUTH_CHALLENGE =
  'Bearer realm="once-operations", Basic realm="once-operations"';

/** The credential file cannot be used; the message names the file and why, never its content. */
export class OperationsCredentialError extends Error {
  readonly code = 'OPERATIONS_CREDENTIAL_INVALID';
}

/**
 * The credential of the operations listener, read from `file` (its first
 * line, surrounding white space dropped: see `operationsTokenOf`, which the
 * CLI reads the same file with). Throws {@link OperationsCredentialError} when the file
 * cannot be read, or the token is shorter than
 * {@link OPERATIONS_TOKEN_LENGTH_MIN} characters.
 */
export function readOperationsToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new OperationsCredentialError(
      `OPERATIONS_CREDENTIAL_INVALID: cannot read the operations token file ${file} (${reason})`,
    );
  }
  const token = operationsTokenOf(text);
  if (token.length < OPERATIONS_TOKEN_LENGTH_MIN) {
    throw new OperationsCredentialError(
      `OPERATIONS_CREDENTIAL_INVALID: the operations token in ${file} is shorter than ` +
        `${OPERATIONS_TOKEN_LENGTH_MIN} characters`,
    );
  }
  return token;
}

/**
 * Checks an `Authorization` header against the expected token, in constant
 * time: both sides are hashed with SHA-256 first, so neither the content nor
 * the length of the token leaks through timing. Accepts
 * `Bearer <token>` (Prometheus's `bearer_token_file`, curl's `-H`) and
 * `Basic base64(user:<token>)` with any user name (tools that only do basic auth).
 */
export class OperationsCredential {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = sha256(token);
  }

  matches(authorization: string | undefined): boolean {
    const presented = presentedToken(authorization);
    // Hash even when nothing usable was presented: the same work either way.
    const digest = sha256(presented ?? '');
    return timingSafeEqual(digest, this.digest) && presented !== undefined;
  }
}

/** The token an `Authorization` header carries, or undefined when it carries none. */
function presentedToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (!match) return undefined;
  const [, scheme, value] = match;
  switch (scheme.toLowerCase()) {
    case 'bearer':
      return value;
    case 'basic':
      return decodeBasicCredentials(value)?.password;
    default:
      return undefined;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
