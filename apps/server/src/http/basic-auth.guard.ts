import {
  type CanActivate,
  type ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
} from '@nestjs/common';
import { ONCE_AUTHENTICATOR, type OnceAuthenticator } from '@once/framework';
import { VerifiedCredentials } from './verified-credentials';

/** What the guard puts on `request.user`: the principal an idempotency key is scoped to. */
export interface HttpPrincipal {
  readonly id: number;
  readonly name: string;
}

/** The parts of an Express or Fastify request the guard reads and writes. */
interface AuthenticatedRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  user?: HttpPrincipal;
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

/** `Basic base64(name:password)`, or undefined when the header is not that. */
export function parseBasic(header: string): { name: string; password: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function unauthenticated(message: string): HttpException {
  return new HttpException({ code: 'UNAUTHENTICATED', message }, HttpStatus.UNAUTHORIZED);
}
