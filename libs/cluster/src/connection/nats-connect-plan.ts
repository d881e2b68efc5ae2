import {
  type Authenticator,
  type ConnectionOptions,
  credsAuthenticator,
  nkeyAuthenticator,
  nkeys,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/nats-core';
import { redactSecrets } from '@once/settings';
import { NatsSecurityError } from './nats-security.error';
import { type NatsSecurityOptions } from './nats-security-options';

/** How a node connects to NATS: the client's options, and what its messages must hide. */
export interface NatsConnectPlan {
  /** For `connect()`: servers without credentials, the authenticator, TLS. */
  readonly options: Pick<ConnectionOptions, 'servers' | 'authenticator' | 'tls'>;
  /** The servers as they may be shown: redacted. */
  readonly addresses: readonly string[];
  /** How the node authenticates, as a log may say it: "user once", "token", "nkey UA…", "no credentials". */
  readonly method: string;
  /** Every secret in play, for {@link redactSecrets}. */
  readonly secrets: readonly string[];
  /** TLS is required; `clientCertificate`: the node presents one. */
  readonly tls: boolean;
  readonly clientCertificate: boolean;
}

/** The credentials a server URL carries: `user:password@`, or a token alone (`token@`). */
interface UrlCredentials {
  readonly user?: string;
  readonly password?: string;
  readonly token?: string;
}

/** The lines a creds file is made of: a user JWT and a user nkey seed, each between dashes. */
const CREDS_SHAPE = /-{3,}[^\n]*JWT[^\n]*-{3,}\n[\s\S]+-{3,}[^\n]*SEED[^\n]*-{3,}\n/i;

const encoder = new TextEncoder();

/**
 * Maps `servers` (as `ONCE_NATS_SERVERS` lists them, `nats://` or `tls://`,
 * credentials allowed) and the security settings to the NATS client's
 * options. Credentials in the URLs are honoured and taken out of them, so
 * the client, its errors and our logs never see them. Throws
 * {@link NatsSecurityError} when the settings do not fit together: two ways
 * to authenticate, a password without a user, a key without a certificate,
 * a seed that is not one.
 */
export function natsConnectPlan(
  servers: readonly string[],
  security: NatsSecurityOptions = {},
): NatsConnectPlan {
  const parsed = servers.map(parseServer);
  const fromUrls = sameCredentials(parsed.map((server) => server.credentials));
  const given = {
    user: security.user,
    password: security.password,
    token: security.token,
    nkeySeed: security.nkeySeed,
    creds: security.creds,
  };
  const settingsAuth = authMethods(given);
  if (fromUrls !== undefined && settingsAuth.length > 0) {
    throw new NatsSecurityError(
      `ONCE_NATS_SERVERS carries credentials and ${settingsAuth.join(', ')} is set too: give them one way`,
    );
  }
  const auth = { ...given, ...fromUrls };
  const methods = authMethods(auth);
  if (methods.length > 1) {
    throw new NatsSecurityError(
      `NATS takes one way to authenticate, and ${methods.join(' and ')} are set: keep one`,
    );
  }
  if (auth.password !== undefined && auth.user === undefined) {
    throw new NatsSecurityError('a NATS password needs its user: set ONCE_NATS_USER');
  }
  if (auth.user !== undefined && auth.password === undefined) {
    throw new NatsSecurityError(
      `the NATS user ${JSON.stringify(auth.user)} needs a password: set ONCE_NATS_PASSWORD_FILE or ONCE_NATS_PASSWORD`,
    );
  }
  const secrets = [auth.password, auth.token, auth.nkeySeed?.trim(), auth.creds].filter(
    (secret): secret is string => secret !== undefined && secret !== '',
  );
  const { authenticator, method } = authenticatorOf(auth);
  const tls = security.tls ?? {};
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    throw new NatsSecurityError(
      'a NATS client certificate needs both ONCE_NATS_TLS_CERT_FILE and ONCE_NATS_TLS_KEY_FILE',
    );
  }
  const tlsWanted =
    parsed.some((server) => server.tls) || Object.keys(security.tls ?? {}).length > 0;
  return {
    options: {
      servers: parsed.map((server) => server.address),
      ...(authenticator && { authenticator }),
      ...(tlsWanted && {
        tls: {
          ...(tls.ca !== undefined && { ca: tls.ca }),
          ...(tls.cert !== undefined && { cert: tls.cert }),
          ...(tls.key !== undefined && { key: tls.key }),
          // Node's name for it; the NATS client hands its TLS options to tls.connect().
          ...(tls.serverName !== undefined && { servername: tls.serverName }),
        },
      }),
    },
    addresses: parsed.map((server) => redactSecrets(server.shown, secrets)),
    method,
    secrets,
    tls: tlsWanted,
    clientCertificate: tls.cert !== undefined,
  };
}

/** One server URL: the address the client dials, whether TLS is required, what it carried. */
function parseServer(text: string): {
  address: string;
  shown: string;
  tls: boolean;
  credentials: UrlCredentials | undefined;
} {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new NatsSecurityError(
      `NATS server ${JSON.stringify(redactSecrets(text))} is not a nats:// or tls:// URL`,
    );
  }
  const tls = url.protocol === 'tls:';
  const address = `${tls ? 'tls' : 'nats'}://${url.host}`;
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const credentials =
    user === undefined ? undefined : password === undefined ? { token: user } : { user, password };
  return { address, shown: redactSecrets(text.trim()), tls, credentials };
}

/** The one set of credentials the URLs carry (some may carry none), or throws when they differ. */
function sameCredentials(all: readonly (UrlCredentials | undefined)[]): UrlCredentials | undefined {
  const given = all.filter((credentials) => credentials !== undefined);
  const first = given[0];
  const differ = given.some(
    (other) =>
      other.user !== first?.user ||
      other.password !== first?.password ||
      other.token !== first?.token,
  );
  if (differ) {
    throw new NatsSecurityError(
      'the URLs of ONCE_NATS_SERVERS carry different credentials; a node has one identity: ' +
        'give it once, in ONCE_NATS_USER with ONCE_NATS_PASSWORD_FILE (or in every URL alike)',
    );
  }
  return first;
}

/** The settings of each way to authenticate that is set, by name. */
function authMethods(auth: {
  user?: string;
  password?: string;
  token?: string;
  nkeySeed?: string;
  creds?: string;
}): string[] {
  return [
    ...(auth.user !== undefined || auth.password !== undefined ? ['a user and password'] : []),
    ...(auth.token !== undefined ? ['a token'] : []),
    ...(auth.nkeySeed !== undefined ? ['an nkey seed'] : []),
    ...(auth.creds !== undefined ? ['a creds file'] : []),
  ];
}

function authenticatorOf(auth: {
  user?: string;
  password?: string;
  token?: string;
  nkeySeed?: string;
  creds?: string;
}): { authenticator?: Authenticator; method: string } {
  if (auth.user !== undefined && auth.password !== undefined) {
    return {
      authenticator: usernamePasswordAuthenticator(auth.user, auth.password),
      method: `user ${auth.user}`,
    };
  }
  if (auth.token !== undefined) {
    if (auth.token === '') throw new NatsSecurityError('the NATS token is empty');
    return { authenticator: tokenAuthenticator(auth.token), method: 'token' };
  }
  if (auth.nkeySeed !== undefined) {
    const seed = encoder.encode(auth.nkeySeed.trim());
    let publicKey: string;
    try {
      publicKey = nkeys.fromSeed(seed).getPublicKey();
    } catch {
      throw new NatsSecurityError('the NATS nkey seed file does not hold an nkey seed (SU…)');
    }
    if (!publicKey.startsWith('U')) {
      throw new NatsSecurityError(
        `the NATS nkey seed is not a user's (its public key is ${publicKey}, not U…)`,
      );
    }
    return { authenticator: nkeyAuthenticator(seed), method: `nkey ${publicKey}` };
  }
  if (auth.creds !== undefined) {
    if (!CREDS_SHAPE.test(auth.creds)) {
      throw new NatsSecurityError(
        'the NATS creds file does not hold a user JWT and an nkey seed (as `nsc generate creds` writes it)',
      );
    }
    return { authenticator: credsAuthenticator(encoder.encode(auth.creds)), method: 'creds file' };
  }
  return { method: 'no credentials' };
}
