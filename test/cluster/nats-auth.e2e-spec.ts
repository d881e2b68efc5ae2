import { nkeys } from '@nats-io/nats-core';
import { Operation } from '@once/protocol';
import { NatsCluster, RawClient, ServiceProcess, bodyJson, eventually } from '@once/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  makeCertificateAuthority,
  makeClientCertificate,
  makeServerCertificate,
} from '../support/tls-certificates';
import { operatorDeployment, strangerCreds } from '../support/nats-jwt';
import { ADMIN_PASSWORD, runServiceToExit } from '../support/wire';

jest.setTimeout(180_000);

/**
 * A cluster node authenticates to NATS as its servers require (user and
 * password, token, nkey, TLS client certificate), is refused with a clear
 * error and exit 1 without them, and never prints a secret, whether given
 * in a setting, a file or a server URL.
 */

const PASSWORD = 'nats-pw-Zq81x';
const TOKEN = 'nats-token-Kd93v';
const CLUSTER_KEY = randomBytes(32).toString('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'once-nats-auth-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `text` written to a new file of the test's directory. */
function secretFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** The environment of a one-node cluster on `servers`. */
function nodeEnv(servers: string, env: Readonly<Record<string, string>>): Record<string, string> {
  return {
    ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // One key for the file: the nodes of a describe share a server, and its stream.
    ONCE_CLUSTER_KEY_FILE: secretFile('cluster.key', `${CLUSTER_KEY}\n`),
    ONCE_NATS_SERVERS: servers,
    ONCE_NODE_ID: 'n1',
    ONCE_CLUSTER_REPLICAS: '1',
    ...env,
  };
}

/** Starts a one-node cluster; resolves with its output once it leads and serves, then stops it. */
async function serves(servers: string, env: Readonly<Record<string, string>>): Promise<string> {
  const node = await ServiceProcess.start({ readyTimeoutMs: 60_000, env: nodeEnv(servers, env) });
  try {
    let ping: unknown;
    await eventually(async () => {
      ping = await pingOf(node.port);
      return (ping as { role?: string } | undefined)?.role === 'leader';
    }, 'the node leading its one-node cluster').catch((error: Error) => {
      throw new Error(
        `${error.message} (last PING ${JSON.stringify(ping)}); the node printed:\n${node.logs.slice(-3000)}`,
      );
    });
    expect(ping).toMatchObject({ ready: true, role: 'leader', node: 'n1' });
    return node.logs;
  } finally {
    await node.cleanup();
  }
}

/** The PING body of the node on `port`, on a connection of its own. */
async function pingOf(port: number): Promise<unknown> {
  const client = await RawClient.connect(port, '127.0.0.1');
  try {
    return bodyJson(await client.request({ operation: Operation.Ping }, undefined, 5000));
  } finally {
    client.destroy();
  }
}

/** Runs a node that must not start; resolves with its exit code and output. */
async function refused(
  servers: string,
  env: Readonly<Record<string, string>>,
): Promise<{ code: number | null; output: string }> {
  const dataDir = mkdtempSync(join(dir, 'data-'));
  return runServiceToExit({ ...nodeEnv(servers, env), ONCE_DATA_DIR: dataDir });
}

describe('given a nats-server that requires a user and password', () => {
  let nats: NatsCluster;
  let url: string;
  let port: string;
  beforeAll(async () => {
    nats = await NatsCluster.start({ servers: 1, auth: { user: 'once', password: PASSWORD } });
    [url] = nats.urls;
    port = new URL(url).port;
  });
  afterAll(() => nats?.cleanup());

  it('when a node starts without credentials, then it exits 1 saying the servers refused it (NATS_AUTH_FAILED)', async () => {
    const { code, output } = await refused(url, {});
    expect(code).toBe(1);
    expect(output).toContain(
      `once: cannot start: the cluster's NATS servers (nats://127.0.0.1:${port}) refused this node's credentials (no credentials): Authorization Violation`,
    );
    expect(output).toContain('(NATS_AUTH_FAILED)');
  });

  it('when the URL carries a wrong password, then it is refused and the password is printed nowhere', async () => {
    const { code, output } = await refused(`nats://once:wrong-pw-77@127.0.0.1:${port}`, {});
    expect(code).toBe(1);
    expect(output).toContain(
      `(nats://***@127.0.0.1:${port}) refused this node's credentials (user once)`,
    );
    expect(output).toContain('NATS_AUTH_FAILED');
    expect(output).not.toContain('wrong-pw-77');
  });

  it('when ONCE_NATS_PASSWORD is wrong, then it is refused without printing it', async () => {
    const { code, output } = await refused(url, {
      ONCE_NATS_USER: 'once',
      ONCE_NATS_PASSWORD: 'wrong-pw-88',
    });
    expect(code).toBe(1);
    expect(output).toContain('NATS_AUTH_FAILED');
    expect(output).not.toContain('wrong-pw-88');
  });

  it('when the password comes from ONCE_NATS_PASSWORD_FILE, then the node serves, and never prints it', async () => {
    const output = await serves(url, {
      ONCE_NATS_USER: 'once',
      ONCE_NATS_PASSWORD_FILE: secretFile('nats-password', `${PASSWORD}\n`),
    });
    expect(output).not.toContain(PASSWORD);
  });

  it('when the credentials are in the URL (nats://user:password@host), then they are honoured and never printed', async () => {
    const output = await serves(`nats://once:${PASSWORD}@127.0.0.1:${port}`, {});
    expect(output).not.toContain(PASSWORD);
  });

  it('when ONCE_NATS_PASSWORD_FILE names a missing file, then the node exits 2 naming the setting and the path', async () => {
    const missing = join(dir, 'no-such-password');
    const { code, output } = await refused(url, {
      ONCE_NATS_USER: 'once',
      ONCE_NATS_PASSWORD_FILE: missing,
    });
    expect(code).toBe(2);
    expect(output).toContain(
      `once: invalid setting: cannot read ONCE_NATS_PASSWORD_FILE ${missing}: no such file`,
    );
  });
});

describe('given a nats-server that requires a token', () => {
  let nats: NatsCluster;
  beforeAll(async () => {
    nats = await NatsCluster.start({ servers: 1, auth: { token: TOKEN } });
  });
  afterAll(() => nats?.cleanup());

  it('when a node has no token or a wrong one, then it exits 1 with NATS_AUTH_FAILED, printing no token', async () => {
    const none = await refused(nats.urls[0], {});
    expect(none.code).toBe(1);
    expect(none.output).toContain(
      "refused this node's credentials (no credentials): Authorization Violation",
    );
    expect(none.output).toContain('(NATS_AUTH_FAILED)');
    const wrong = await refused(nats.urls[0], {
      ONCE_NATS_TOKEN_FILE: secretFile('wrong-token', 'wrong-token-55\n'),
    });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain(
      "refused this node's credentials (token): Authorization Violation",
    );
    expect(wrong.output).toContain('(NATS_AUTH_FAILED)');
    expect(wrong.output).not.toContain('wrong-token-55');
  });

  it('when the token comes from ONCE_NATS_TOKEN_FILE, then the node serves and never prints it', async () => {
    const output = await serves(nats.urls[0], {
      ONCE_NATS_TOKEN_FILE: secretFile('token', `${TOKEN}\n`),
    });
    expect(output).not.toContain(TOKEN);
  });
});

describe('given a nats-server that knows one user by its nkey', () => {
  const user = nkeys.createUser();
  const seed = new TextDecoder().decode(user.getSeed());
  let nats: NatsCluster;
  beforeAll(async () => {
    nats = await NatsCluster.start({ servers: 1, auth: { nkey: user.getPublicKey() } });
  });
  afterAll(() => nats?.cleanup());

  it('when a node has no seed or another user seed, then it exits 1 with NATS_AUTH_FAILED, printing no seed', async () => {
    const none = await refused(nats.urls[0], {});
    expect(none.code).toBe(1);
    expect(none.output).toContain('NATS_AUTH_FAILED');
    const stranger = nkeys.createUser();
    const strangerSeed = new TextDecoder().decode(stranger.getSeed());
    const other = await refused(nats.urls[0], {
      ONCE_NATS_NKEY_SEED_FILE: secretFile('stranger.nk', `${strangerSeed}\n`),
    });
    expect(other.code).toBe(1);
    expect(other.output).toContain(`(nkey ${stranger.getPublicKey()}): Authorization Violation`);
    expect(other.output).not.toContain(strangerSeed);
  });

  it('when the seed comes from ONCE_NATS_NKEY_SEED_FILE, then the node serves and never prints it', async () => {
    const output = await serves(nats.urls[0], {
      ONCE_NATS_NKEY_SEED_FILE: secretFile('user.nk', `${seed}\n`),
    });
    expect(output).not.toContain(seed);
  });
});

describe('given a nats-server in operator mode (JWT accounts and users)', () => {
  const deployment = operatorDeployment();
  let nats: NatsCluster;
  beforeAll(async () => {
    nats = await NatsCluster.start({ servers: 1, auth: { config: deployment.serverConfig } });
  });
  afterAll(() => nats?.cleanup());

  it('when a node has no creds or the creds of an account the servers do not know, then it exits 1 with NATS_AUTH_FAILED', async () => {
    const none = await refused(nats.urls[0], {});
    expect(none.code).toBe(1);
    expect(none.output).toContain('NATS_AUTH_FAILED');
    const stranger = strangerCreds();
    const other = await refused(nats.urls[0], {
      ONCE_NATS_CREDS_FILE: secretFile('stranger.creds', stranger),
    });
    expect(other.code).toBe(1);
    expect(other.output).toContain("refused this node's credentials (creds file)");
    expect(other.output).toContain('NATS_AUTH_FAILED');
    expect(other.output).not.toContain(stranger.split('\n')[5]);
  });

  it('when the creds come from ONCE_NATS_CREDS_FILE, then the node serves and never prints its seed', async () => {
    const output = await serves(nats.urls[0], {
      ONCE_NATS_CREDS_FILE: secretFile('once.creds', deployment.creds),
    });
    expect(output).not.toContain(deployment.userSeed);
  });
});

describe('given a nats-server that requires TLS and verifies client certificates', () => {
  let nats: NatsCluster;
  let ca: ReturnType<typeof makeCertificateAuthority>;
  let client: ReturnType<typeof makeClientCertificate>;
  /** The server by the name its certificate carries: a NATS client checks an IP URL against "localhost". */
  let url: string;
  beforeAll(async () => {
    const certs = mkdtempSync(join(dir, 'certs-'));
    ca = makeCertificateAuthority(certs);
    const server = makeServerCertificate(certs, { host: 'localhost', signedBy: ca });
    client = makeClientCertificate(certs, { commonName: 'once node', signedBy: ca });
    nats = await NatsCluster.start({
      servers: 1,
      tls: {
        certFile: server.certFile,
        keyFile: server.keyFile,
        caFile: ca.certFile,
        verify: true,
      },
    });
    url = `tls://localhost:${new URL(nats.urls[0]).port}`;
  });
  afterAll(() => nats?.cleanup());

  it('when a node presents its client certificate over a tls:// URL, then it serves', async () => {
    expect(nats.urls[0]).toMatch(/^tls:\/\//);
    await serves(url, {
      ONCE_NATS_TLS_CA_FILE: ca.certFile,
      ONCE_NATS_TLS_CERT_FILE: client.certFile,
      ONCE_NATS_TLS_KEY_FILE: client.keyFile,
    });
  });

  it('when a node has no client certificate, then the server refuses it and it exits 1 (NATS_UNREACHABLE)', async () => {
    const { code, output } = await refused(url, {
      ONCE_NATS_TLS_CA_FILE: ca.certFile,
      ONCE_NATS_CONNECT_TIMEOUT_MS: '5s',
    });
    expect(code).toBe(1);
    expect(output).toContain(
      `once: cannot start: cannot reach the cluster's NATS servers (${url})`,
    );
    expect(output).toContain('NATS_UNREACHABLE');
  });

  it("when a node does not trust the server's CA, then it refuses the server and exits 1", async () => {
    const { code, output } = await refused(url, {
      ONCE_NATS_TLS_CERT_FILE: client.certFile,
      ONCE_NATS_TLS_KEY_FILE: client.keyFile,
    });
    expect(code).toBe(1);
    expect(output).toContain('NATS_UNREACHABLE');
  });
});
