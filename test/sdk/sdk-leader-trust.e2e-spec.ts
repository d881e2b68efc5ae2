import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaderNotTrustedError, OnceClient, type OnceClientOptions } from '@once/sdk';
import { ServiceProcess } from '@once/testing';
import { WatchedListener } from '../../libs/sdk/src/__fixtures__/hinting-node.fixture';
import {
  type CertificateFiles,
  makeCertificateAuthority,
  makeServerCertificate,
} from '../support/tls-certificates';
import { ADMIN_PASSWORD, accountName } from '../support/wire';
import { LeaderReportingNode } from './support/leader-reporting-node';

jest.setTimeout(120_000);

/**
 * Where a leader hint may send a client. A hint comes from the cluster's
 * lease in NATS, which whoever can write NATS can forge (`"advertise":
 * "127.0.0.1:17999"`): a client that followed it would send its REGISTER,
 * username and password, to that address. The SDK follows a hint only to a
 * configured node, or to any address named over a TLS connection whose
 * certificate it verified.
 */

/** What `connect()` rejected with; fails the test if it bound a session. */
async function connectFailure(options: OnceClientOptions): Promise<unknown> {
  const outcome = await OnceClient.connect(options).catch((error: unknown) => error);
  if (outcome instanceof OnceClient) {
    const node = outcome.node;
    await outcome.close({ force: true });
    throw new Error(`connect() bound a session on ${JSON.stringify(node)}`);
  }
  return outcome;
}

describe('given a follower that answers NOT_READY naming a leader at an address the test owns (a forged hint), over plain TCP', () => {
  let forged: WatchedListener;
  let follower: LeaderReportingNode;
  beforeAll(async () => {
    forged = await WatchedListener.start();
    follower = await LeaderReportingNode.start(forged.address);
  });
  afterAll(async () => {
    await follower?.close();
    await forged?.close();
  });

  it('when a client is given the follower as its node list, then it never connects to the forged address, and connect() says why', async () => {
    const failure = await connectFailure({
      nodes: [{ host: '127.0.0.1', port: follower.port }],
      username: 'admin',
      password: ADMIN_PASSWORD,
      logger: false,
    });

    expect(forged.connections).toBe(0);
    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(failure).toMatchObject({
      code: 'LEADER_NOT_TRUSTED',
      node: `127.0.0.1:${follower.port}`,
      role: 'follower',
      leader: forged.address,
    });
    expect((failure as Error).message).toContain(
      "not one of the client's configured nodes, and the connection is plain TCP, not verified TLS",
    );
  });

  it('when a client is given its host and port, then it fails at once (one REGISTER, no silent retry loop) and never connects there', async () => {
    const before = follower.received.length;
    const failure = await connectFailure({
      port: follower.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
      logger: false,
    });

    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(follower.received.slice(before)).toEqual([1]);
    expect(forged.connections).toBe(0);
  });
});

describe('given a once service serving TLS, and a TLS follower naming it as its leader, both with certificates of one CA', () => {
  let dir: string;
  let ca: CertificateFiles;
  let service: ServiceProcess;
  let follower: LeaderReportingNode;
  const clients: OnceClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-leader-trust-'));
    ca = makeCertificateAuthority(dir);
    const serverCertificate = makeServerCertificate(dir, { host: '127.0.0.1', signedBy: ca });
    service = await ServiceProcess.start({
      env: {
        ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ONCE_TLS_KEY_FILE: serverCertificate.keyFile,
        ONCE_TLS_CERT_FILE: serverCertificate.certFile,
      },
      tls: { ca: ca.cert },
    });
    const followerCertificate = makeServerCertificate(dir, {
      host: '127.0.0.1',
      signedBy: ca,
      name: 'follower',
    });
    follower = await LeaderReportingNode.start(`127.0.0.1:${service.port}`, {
      key: followerCertificate.key,
      cert: followerCertificate.cert,
    });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close({ force: true });
  });
  afterAll(async () => {
    await follower?.close();
    await service?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('when a client verifying the CA is given only the follower, then it follows the hint over verified TLS and its commands commit on the leader', async () => {
    const client = await OnceClient.connect({
      port: follower.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
      tls: { ca: ca.cert },
      logger: false,
    });
    clients.push(client);

    expect(client.node).toEqual({ host: '127.0.0.1', port: service.port });
    const account = accountName('tls-hint');
    await expect(client.command('ledger.open', { account })).resolves.toEqual({
      account,
      balance: 0,
    });
  });

  it('when the client does not verify certificates (rejectUnauthorized: false), then the hint is not followed and connect() says the certificate was not verified', async () => {
    const failure = await connectFailure({
      port: follower.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
      tls: { rejectUnauthorized: false },
      logger: false,
    });

    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(failure).toMatchObject({
      node: follower.address,
      leader: `127.0.0.1:${service.port}`,
    });
    expect((failure as Error).message).toContain('was not verified');
  });

  it("when the client trusts configured nodes only (trustLeaderHints: 'configured'), then even a verified hint is not followed", async () => {
    const failure = await connectFailure({
      port: follower.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
      tls: { ca: ca.cert },
      trustLeaderHints: 'configured',
      logger: false,
    });

    expect(failure).toBeInstanceOf(LeaderNotTrustedError);
    expect(failure).toMatchObject({ trust: 'configured' });
  });
});
