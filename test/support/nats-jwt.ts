import { nkeys } from '@nats-io/nats-core';
import { createHash } from 'node:crypto';

/**
 * A NATS operator deployment made by hand for tests (`@nats-io/jwt` and
 * `nsc` are not installed): an operator, a system account, an account with
 * JetStream and a user of it, each a JWT signed with the issuer's nkey as
 * the NATS JWT v2 format says (header `ed25519-nkey`, base64url parts). The
 * servers get the operator and both accounts preloaded into a memory resolver
 * (`serverConfig`); a client gets `creds`, the file `nsc generate creds` writes.
 */
export interface OperatorDeployment {
  /** Configuration lines for `nats-server` (operator mode, MEMORY resolver). */
  readonly serverConfig: string;
  /** The creds file text of the account's user. */
  readonly creds: string;
  /** The user's seed, to check it is never printed. */
  readonly userSeed: string;
}

type KeyPair = ReturnType<typeof nkeys.createUser>;

const UNLIMITED = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
};

export function operatorDeployment(): OperatorDeployment {
  const operator = nkeys.createOperator();
  const system = nkeys.createAccount();
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  const operatorJwt = signed(operator, operator, 'test operator', {
    type: 'operator',
    version: 2,
    system_account: system.getPublicKey(),
  });
  const systemJwt = signed(operator, system, 'SYS', {
    type: 'account',
    version: 2,
    limits: UNLIMITED,
  });
  const accountJwt = signed(operator, account, 'ONCE', {
    type: 'account',
    version: 2,
    limits: { ...UNLIMITED, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 },
  });
  const userSeed = new TextDecoder().decode(user.getSeed());
  return {
    serverConfig: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      'resolver: MEMORY',
      'resolver_preload: {',
      `  ${system.getPublicKey()}: ${systemJwt}`,
      `  ${account.getPublicKey()}: ${accountJwt}`,
      '}',
    ].join('\n'),
    creds: credsOf(signed(account, user, 'once', userClaims()), userSeed),
    userSeed,
  };
}

/** The creds of a user of an account the servers do not know: refused. */
export function strangerCreds(): string {
  const account = nkeys.createAccount();
  const user = nkeys.createUser();
  return credsOf(
    signed(account, user, 'stranger', userClaims()),
    new TextDecoder().decode(user.getSeed()),
  );
}

function userClaims(): Record<string, unknown> {
  return { type: 'user', version: 2, pub: {}, sub: {}, subs: -1, data: -1, payload: -1 };
}

function credsOf(jwt: string, seed: string): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    jwt,
    '------END NATS USER JWT------',
    '',
    '-----BEGIN USER NKEY SEED-----',
    seed,
    '------END USER NKEY SEED------',
    '',
  ].join('\n');
}

/** A JWT of `subject`'s public key with `nats` claims, signed by `issuer`. */
function signed(issuer: KeyPair, subject: KeyPair, name: string, nats: object): string {
  const header = base64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const claims: Record<string, unknown> = {
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject.getPublicKey(),
    nats,
  };
  claims.jti = createHash('sha256').update(JSON.stringify(claims)).digest('hex').toUpperCase();
  const body = base64url(JSON.stringify(claims));
  const signature = issuer.sign(Buffer.from(`${header}.${body}`));
  return `${header}.${body}.${base64url(signature)}`;
}

function base64url(data: string | Uint8Array): string {
  return Buffer.from(data).toString('base64url');
}
