import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IdempotentHttpClient, InvalidOptionsError } from '@once/sdk';
import { IdempotentHttpModule } from './idempotent-http.module';

/** A server on 127.0.0.1 that drops each first connection attempt, then answers 201, recording the keys. */
async function flakyServer(): Promise<{ server: Server; baseUrl: string; keys: string[] }> {
  const keys: string[] = [];
  const server = createServer((request, response) => {
    keys.push(String(request.headers['idempotency-key']));
    if (keys.length % 2 === 1) {
      request.socket.destroy();
      return;
    }
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end('{"balance":5}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keys };
}

@Injectable()
class Payments {
  constructor(readonly ledger: IdempotentHttpClient) {}
}

@Injectable()
class Config {
  baseUrl = '';
}

@Module({ providers: [Config], exports: [Config] })
class ConfigModule {}

describe('IdempotentHttpModule', () => {
  let flaky: Awaited<ReturnType<typeof flakyServer>>;
  beforeEach(async () => {
    flaky = await flakyServer();
  });
  afterEach(async () => {
    flaky.server.closeAllConnections();
    await new Promise((resolve) => flaky.server.close(resolve));
  });

  it('given register, when a provider injects the client by its type, then its calls keep one key across a retry', async () => {
    // Given
    const module = await Test.createTestingModule({
      imports: [
        IdempotentHttpModule.register({ baseUrl: flaky.baseUrl, delayMs: 1, delayMsMax: 5 }),
      ],
      providers: [Payments],
    }).compile();

    // When
    const answer = await module.get(Payments).ledger.post('/ledger/deposit', { amount: 5 });

    // Then
    expect(answer).toMatchObject({ status: 201, attempts: 2 });
    expect(flaky.keys).toEqual([`"${answer.key}"`, `"${answer.key}"`]);
    await module.close();
  });

  it('given registerAsync under a name, when the factory reads another provider, then the client is built from it', async () => {
    // Given
    @Injectable()
    class NamedPayments {
      constructor(@Inject('LEDGER') readonly ledger: IdempotentHttpClient) {}
    }
    const module = await Test.createTestingModule({
      imports: [
        IdempotentHttpModule.registerAsync({
          name: 'LEDGER',
          imports: [ConfigModule],
          inject: [Config],
          useFactory: (config: Config) => ({ baseUrl: config.baseUrl, delayMs: 1, delayMsMax: 5 }),
        }),
      ],
      providers: [NamedPayments],
    })
      .overrideProvider(Config)
      .useValue({ baseUrl: flaky.baseUrl })
      .compile();

    // When
    const answer = await module.get(NamedPayments).ledger.post('/ledger/deposit', {});

    // Then
    expect(answer.status).toBe(201);
    await module.close();
  });

  it('refuses unusable options when registered', () => {
    expect(() => IdempotentHttpModule.register({ baseUrl: 'nowhere' })).toThrow(
      InvalidOptionsError,
    );
  });
});
