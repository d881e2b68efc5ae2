import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { lastValueFrom } from 'rxjs';
import { OnceRuntime } from '@once/framework';
import { OnceServer, UnsupportedGatewayOptionError } from '@once/gateway';
import { OnceClientProxy, UnsupportedOptionError } from '@once/nest-client';
import { Operation } from '@once/protocol';
import { RawClient } from '@once/testing';
import { makeServerCertificate } from '../support/tls-certificates';
import { closedWithin, requestBytes } from '../support/wire';
import { TallyAppModule } from './support/tally-app';

/**
 * TLS configured the NestJS way: `tlsOptions` on the server strategy and on
 * the client proxy, exactly what a team passes to NestJS's own TCP transport.
 * Once serves it as TLS, or refuses it at construction; it never accepts it
 * and serves plain TCP.
 */

describe('given an OnceServer built with NestJS tlsOptions (a certificate for 127.0.0.1)', () => {
  let dir: string;
  let certificate: Buffer;
  let app: INestMicroservice | undefined;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-tls-options-'));
    const { key, cert } = makeServerCertificate(dir, { host: '127.0.0.1' });
    certificate = cert;
    const strategy = new OnceServer({ host: '127.0.0.1', port: 0, tlsOptions: { key, cert } });
    app = await NestFactory.createMicroservice(TallyAppModule.register(join(dir, 'data')), {
      strategy,
      logger: false,
    });
    await app.listen();
    await app.get(OnceRuntime).whenReady();
    port = strategy.address()!.port;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('when an OnceClientProxy given tlsOptions (trusting the certificate) sends a command, then it is served over TLS', async () => {
    const proxy = new OnceClientProxy({
      host: '127.0.0.1',
      port,
      username: 'alice',
      password: 'pw',
      tlsOptions: { ca: certificate },
    });
    try {
      const first = await lastValueFrom(proxy.send<{ count: number }>('tally.add', { by: 2 }));
      const second = await lastValueFrom(proxy.send<{ count: number }>('tally.add', { by: 3 }));
      expect([first.count, second.count]).toEqual([2, 5]);
    } finally {
      await proxy.close();
    }
  });

  it('when a TLS client that trusts the certificate connects, then the handshake completes with a TLS protocol', async () => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: certificate });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('secureConnect', resolve);
        socket.once('error', reject);
      });
      expect(socket.authorized).toBe(true);
      expect(socket.getProtocol()).toMatch(/^TLSv1\.[23]$/);
    } finally {
      socket.destroy();
    }
  });

  it('when a plain TCP peer sends a PING, then it gets no frame: the connection is closed', async () => {
    const raw = await RawClient.connect(port);
    try {
      raw.write(requestBytes({ operation: Operation.Ping }));
      await expect(raw.next()).rejects.toThrow(/closed|bad frame/);
      await closedWithin(raw);
    } finally {
      raw.destroy();
    }
  });

  it('when an OnceClientProxy has no TLS options, then it is not served (no plain-TCP fallback)', async () => {
    const proxy = new OnceClientProxy({
      host: '127.0.0.1',
      port,
      username: 'alice',
      password: 'pw',
      connectTimeoutMs: 2000,
      reconnect: { attemptsMax: 1 },
    });
    try {
      await expect(lastValueFrom(proxy.send('tally.add', { by: 1 }))).rejects.toBeDefined();
    } finally {
      await proxy.close();
    }
  });
});

describe('given the NestJS TCP options once does not serve', () => {
  it.each([
    'retryAttempts',
    'retryDelay',
    'maxBufferSize',
    'incompleteMessageTimeout',
    'maxSendBufferSize',
    'socketClass',
  ])(
    'when OnceServer and OnceClientProxy are built with %s, then construction is refused (OPTION_UNSUPPORTED)',
    (option) => {
      expect(() => new OnceServer({ port: 0, [option]: 1 })).toThrow(UnsupportedGatewayOptionError);
      expect(
        () => new OnceClientProxy({ port: 7700, username: 'u', password: 'p', [option]: 1 }),
      ).toThrow(UnsupportedOptionError);
    },
  );
});
