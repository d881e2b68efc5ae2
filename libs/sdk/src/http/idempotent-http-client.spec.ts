import { InvalidOptionsError } from '../errors/invalid-options.error';
import { ScriptedHttpServer } from './__fixtures__/scripted-http-server.fixture';
import { IdempotentHttpClient } from './idempotent-http-client';

describe('IdempotentHttpClient', () => {
  let server: ScriptedHttpServer;
  afterEach(() => server?.close());

  it('resolves paths against baseUrl, sends its common headers, and keeps one key per call across retries', async () => {
    // Given a server that drops the first connection of each call... then answers
    server = await ScriptedHttpServer.start([
      { kind: 'drop' },
      { kind: 'status', status: 201, body: '{}' },
      { kind: 'drop' },
      { kind: 'status', status: 200, body: '{}' },
    ]);
    const client = new IdempotentHttpClient({
      baseUrl: server.baseUrl,
      headers: { authorization: 'Bearer t' },
      delayMs: 1,
      delayMsMax: 5,
    });

    // When two operations are sent
    const deposit = await client.post('/ledger/deposit', { amount: 5 });
    const put = await client.put('/ledger/accounts/a', 'text body', {
      headers: { 'content-type': 'text/plain' },
    });

    // Then each kept its key across its own retry, and the keys differ
    expect(server.keys).toEqual([
      `"${deposit.key}"`,
      `"${deposit.key}"`,
      `"${put.key}"`,
      `"${put.key}"`,
    ]);
    expect(deposit.key).not.toBe(put.key);
    expect(
      server.received.map((request) => [request.method, request.url, request.contentType]),
    ).toEqual([
      ['POST', '/ledger/deposit', 'application/json'],
      ['POST', '/ledger/deposit', 'application/json'],
      ['PUT', '/ledger/accounts/a', 'text/plain'],
      ['PUT', '/ledger/accounts/a', 'text/plain'],
    ]);
    expect([deposit.attempts, put.attempts]).toEqual([2, 2]);
  });

  it('lets a request override the retry policy', async () => {
    server = await ScriptedHttpServer.start([{ kind: 'status', status: 503 }]);
    const client = new IdempotentHttpClient({ baseUrl: server.baseUrl, delayMs: 1, delayMsMax: 5 });
    await expect(client.delete('/x', { retry: { attemptsMax: 2 } })).rejects.toMatchObject({
      code: 'HTTP_OUTCOME_UNKNOWN',
      attempts: 2,
    });
    expect(server.received).toHaveLength(2);
  });

  it('refuses a missing base URL or unusable options at construction', () => {
    expect(() => new IdempotentHttpClient({ baseUrl: 'not a url' })).toThrow(InvalidOptionsError);
    expect(() => new IdempotentHttpClient({ baseUrl: 'http://h', attemptsMax: 0 })).toThrow(
      InvalidOptionsError,
    );
  });
});
