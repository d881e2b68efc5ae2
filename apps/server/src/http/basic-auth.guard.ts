import {
  type CanActivate,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
} from '@nestjs/common';
import { ONCE_AUTHENTICATOR, type OnceAuthenticator } from '@once/framework';
import { decodeBasicCredentials } from '../basic-credentials';
import { VerifiedCredentials } from './verified-credentials';

/**
 * What the guard puts on `request.user`: the user `@Idempotent` reads its
 * principal from (`id`), so an idempotency key is scoped to that user.
 */
export interface AuthenticatedUser {
  readonly id: number;
  readonly name: string;
}

/** The parts of an Express or Fastify request the guard reads and writes. */
interface AuthenticatedRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  user?: AuthenticatedUser;
}

/**
 * HTTP basic auth against the application's authenticator (the users
 * module's): the same users, passwords and `disabled` flag as a TCP client's
 * REGISTER, so a team has one list of
 * callers whichever transport they use. The principal goes on `request.user`,
 * where `@Idempotent` scopes keys (one user can never replay another's).
 *
 * A password check costs a scrypt (tens of ms, on purpose): a credential that
 * verified is remembered for a short while (see {@link VerifiedCredentials}),
 * so a client's requests do not each pay it.
 */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  private readonly verified = new VerifiedCredentials();

  constructor(@Inject(ONCE_AUTHENTICATOR) private readonly authenticator: OnceAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const credentials = typeof header === 'string' ? parseBasic(header) : undefined;
    if (typeof header !== 'string' || !credentials) {
      throw unauthenticated('send HTTP basic auth (a user of the users module)');
    }
    let principal = this.verified.get(header);
    if (!principal) {
      const id = await this.authenticator.authenticate(credentials.name, credentials.password);
      if (id === undefined) throw unauthenticated('bad username or password');
      principal = { id, name: credentials.name };
      this.verified.remember(header, principal);
    }
    request.user = principal;
    return true;
  }
}

/** `Basic base64(name:password)` with a name, or undefined when the header is not that. */
export function parseBasic(header: string): { name: string; password: string } | undefined {
  const match = /^Basic +(\S+) *$/i.exec(header);
  const credentials = match ? decodeBasicCredentials(match[1]) : undefined;
  return credentials?.name ? credentials : undefined;
}

function unauthenticated(message: string): HttpException {
  return new HttpException({ code: 'UNAUTHENTICATED', message }, HttpStatus.UNAUTHORIZED);
}
