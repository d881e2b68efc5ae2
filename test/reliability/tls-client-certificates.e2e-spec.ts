import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import { Operation } from '@once/protocol';
import { ConnectError, type OnceClientEvent, OnceClient } from '@once/sdk';
import { ServiceProcess, eventually } from '@once/testing';
import {
  type CertificateFiles,
  makeCertificateAuthority,
  makeClientCertificate,
  makeServerCertificate,
} from '../support/tls-certificates';
import { expectLedgerRoundTrip } from '../support/ledger-round-trip';
import { ADMIN_PASSWORD, accountName, requestBytes } from '../support/wire';

/**
 * Mutual TLS (docs/operating/configuration.md, ONCE_TLS_CA_FILE / --tls-ca-file): with a
 * CA bundle the node serves only clients that present a certificate signed by
 * that CA. A client without one, or with one the CA did not sign, is refused
 * during the TLS handshake: the gateway never sees it, so not even a PING is
 * answered, and the clients the node already serves are not disturbed.
 */

/** How long a refused connection may take to be closed by the node. */
const REFUSAL_BOUND_MS = 5000;

/** What a TLS client saw after the handshake started and it sent a PING. */
interface PingAttempt {
  /** Bytes the node sent after the handshake (a PING answer would be a frame). */
  readonly bytesReceived: number;
  /** The node closed the connection (rather than the bound running out). */
  readonly closedByNode: boolean;
  /** The socket error, if any (a TLS alert shows here). */
  readonly error: string | undefined;
}

/**
 * Connects over TLS to 127.0.0.1:`port` with `options` and sends a PING as
 * soon as the client's side of the handshake completes (under TLS 1.3 that
 * precedes the node's verdict on the client certificate); resolves with what
 * came back once the connection is closed, or after {@link REFUSAL_BOUND_MS}.
 */
function pingOverTls(port: number, options: ConnectionOptions): Promise<PingAttempt> {
  return new Promise((resolve) => {
    let bytesReceived = 0;
    let error: string | undefined;
    let closedByNode = true;
    const socket = connectTls({ ...options, host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      closedByNode = false;
      socket.destroy();
    }, REFUSAL_BOUND_MS);
    socket.once('secureConnect', () => socket.write(requestBytes({ operation: Operation.Ping })));
    socket.on('data', (chunk: Buffer) => (bytesReceived += chunk.length));
    socket.on('error', (failure: NodeJS.ErrnoException) => {
      error ??= failure.code ?? failure.message;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ bytesReceived, closedByNode, error });
    });
  });
}

/** Occurrences of the node's log line for a refused handshake. */
function handshakeFailures(service: ServiceProcess): number {
  return service.logs.match(/TLS handshake failed/g)?.length ?? 0;
}

describe('given a service serving TLS on 127.0.0.1 with ONCE_TLS_CA_FILE set: client certificates signed by that CA are required', () => {
  let dir: string | undefined;
  let service: ServiceProcess | undefined;
  let ca: CertificateFiles;
  let signedClient: CertificateFiles;
  let selfSignedClient: CertificateFiles;
  const clients: OnceClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-mtls-'));
    ca = makeCertificateAuthority(dir);
    const server = makeServerCertificate(dir, { host: '127.0.0.1', signedBy: ca });
    signedClient = makeClientCertificate(dir, { commonName: 'signed client', signedBy: ca });
    selfSignedClient = makeClientCertificate(dir, { commonName: 'self-signed client' });
    service = await ServiceProcess.start({
      env: {
        ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ONCE_TLS_KEY_FILE: server.keyFile,
        ONCE_TLS_CERT_FILE: server.certFile,
        ONCE_TLS_CA_FILE: ca.certFile,
      },
      // The readiness probe (PING) must present a certificate too.
      tls: { ca: ca.cert, key: signedClient.key, cert: signedClient.cert },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close({ force: true })));
    await service?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** An OnceClient over TLS trusting the CA, presenting `certificate` if given. */
  async function connect(certificate?: CertificateFiles): Promise<OnceClient> {
    const client = await OnceClient.connect({
      port: service!.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
      tls: {
        ca: ca.cert,
        ...(certificate && { key: certificate.key, cert: certificate.cert }),
      },
      connectTimeoutMs: REFUSAL_BOUND_MS,
      reconnect: { attemptsMax: 1 },
    });
    clients.push(client);
    return client;
  }

  /**
   * An authorised client with an open account, and the events it reports from
   * now on (a `disconnected` would mean its connection was disturbed).
   */
  async function authorisedClient(): Promise<{
    client: OnceClient;
    account: string;
    events: OnceClientEvent[];
  }> {
    const client = await connect(signedClient);
    const account = accountName('mtls');
    await expect(client.command('ledger.open', { account })).resolves.toEqual({
      account,
      balance: 0,
    });
    const events: OnceClientEvent[] = [];
    client.events$.subscribe((event) => events.push(event));
    return { client, account, events };
  }

  it('when an OnceClient connects with a client certificate signed by the CA, then it registers and its deposit commits', async () => {
    const client = await connect(signedClient);
    expect(client.identity.userId).toBe(1);
    expect(client.identity.epoch).toBeGreaterThan(0);
    await expectLedgerRoundTrip(client, 'mtls');
    expect(client.identity).toMatchObject({ nextRequest: 3, watermark: 2 });
  });

  it.each([
    ['no client certificate', () => undefined],
    ['a self-signed client certificate the CA did not sign', () => selfSignedClient],
  ])(
    'when a client connects with %s, then the handshake is refused: no PING is answered, an OnceClient cannot register, and the service keeps serving the authorised client',
    async (_what, certificate: () => CertificateFiles | undefined) => {
      const { client, account, events } = await authorisedClient();
      const failuresBefore = handshakeFailures(service!);
      const presented = certificate();

      // At the wire: the node closes the connection without sending a byte.
      const attempt = await pingOverTls(service!.port, {
        ca: ca.cert,
        ...(presented && { key: presented.key, cert: presented.cert }),
      });
      expect(attempt).toMatchObject({ bytesReceived: 0, closedByNode: true });

      // With the SDK and the right password: no session is bound.
      const refused = await connect(presented).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ConnectError);

      // The node logged both refusals and goes on serving the client it had.
      await eventually(
        () => handshakeFailures(service!) >= failuresBefore + 2,
        'the node logs the two refused handshakes',
        REFUSAL_BOUND_MS,
      );
      expect(service!.running).toBe(true);
      await expect(client.command('ledger.deposit', { account, amount: 3 })).resolves.toEqual({
        balance: 3,
      });
      await expect(client.query('ledger.balance', { account })).resolves.toEqual({ balance: 3 });
      expect(events).toEqual([]);
    },
  );

  it.each([
    ['no client certificate', () => undefined, /peer did not return a certificate/],
    [
      'a self-signed client certificate',
      () => selfSignedClient,
      /client certificate refused \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    ],
  ])(
    'when a client with %s is refused, then the node logs why',
    async (_what, certificate: () => CertificateFiles | undefined, reason: RegExp) => {
      const mark = service!.logs.length;
      const presented = certificate();
      const attempt = await pingOverTls(service!.port, {
        ca: ca.cert,
        ...(presented && { key: presented.key, cert: presented.cert }),
      });
      expect(attempt).toMatchObject({ bytesReceived: 0, closedByNode: true });
      await eventually(
        () =>
          service!.logs
            .slice(mark)
            .split('\n')
            .some((line) => line.includes('TLS handshake failed') && reason.test(line)),
        `the node logs why the handshake failed (${reason.source})`,
        REFUSAL_BOUND_MS,
      );
    },
  );
});
