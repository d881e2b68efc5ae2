import { HttpOutcomeUnknownError } from '../errors/http-outcome-unknown.error';
import { InvalidOptionsError } from '../errors/invalid-options.error';
import {
  ScriptedHttpServer,
  type ScriptedAnswer,
} from './__fixtures__/scripted-http-server.fixture';
import { idempotentRequest } from './idempotent-request';

const OK: ScriptedAnswer = {
  kind: 'status',
  status: 201,
  headers: { 'content-type': 'application/json', 'idempotent-replayed': 'false' },
  body: '{"balance":5}',
};
const IN_FLIGHT: ScriptedAnswer = {
  kind: 'status',
  status: 409,
  headers: { 'retry-after': '0' },
  body: '{"code":"IDEMPOTENCY_KEY_IN_FLIGHT","message":"being applied"}',
};
const NOT_LEADER: ScriptedAnswer = {
  kind: 'status',
  status: 503,
  headers: { 'retry-after': '0' },
  body: '{"code":"NOT_LEADER","message":"a follower"}',
};

/** Fast retries: the tests wait for answers, never for time. */
const FAST = { delayMs: 1, delayMsMax: 5 };

describe('idempotentRequest', () => {
  const servers: ScriptedHttpServer[] = [];
  async function serve(...script: ScriptedAnswer[]): Promise<ScriptedHttpServer> {
    const server = await ScriptedHttpServer.start(script);
    servers.push(server);
    return server;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('keeps one key across a dropped connection, a 409 and a 503, and returns the final answer', async () => {
    // Given a server that drops the first connection, then answers 409, then 503, then 201
    const server = await serve({ kind: 'drop' }, IN_FLIGHT, NOT_LEADER, OK);

    // When one operation is sent
    const response = await idempotentRequest(
      `${server.baseUrl}/ledger/deposit`,
      { body: { account: 'a', amount: 5 } },
      FAST,
    );

    // Then every attempt carried the same key, as an sf-string, and the 201 is returned
    expect(server.keys).toHaveLength(4);
    expect(new Set(server.keys)).toEqual(new Set([`"${response.key}"`]));
    expect(response.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(response).toMatchObject({
      status: 201,
      body: '{"balance":5}',
      replayed: false,
      attempts: 4,
    });
    expect(server.received.map((request) => [request.method, request.url, request.body])).toEqual(
      Array(4).fill(['POST', '/ledger/deposit', '{"account":"a","amount":5}']),
    );
    expect(server.received[0].contentType).toBe('application/json');
  });

  it('gives each operation its own key', async () => {
    const server = await serve(OK);
    const first = await idempotentRequest(server.baseUrl, { body: 'x' }, FAST);
    const second = await idempotentRequest(server.baseUrl, { body: 'x' }, FAST);
    expect(first.key).not.toBe(second.key);
    expect(server.keys).toEqual([`"${first.key}"`, `"${second.key}"`]);
  });

  it.each([400, 404, 422, 500])(
    'returns a %i at once: the server decided, a retry would be answered the same',
    async (status) => {
      // Given a server that refuses
      const server = await serve({
        kind: 'status',
        status,
        body: '{"code":"IDEMPOTENCY_KEY_REUSED","message":"another request"}',
      });

      // When an operation is sent
      const response = await idempotentRequest(server.baseUrl, { body: {} }, FAST);

      // Then it was sent once and the refusal is the answer
      expect(server.received).toHaveLength(1);
      expect(response).toMatchObject({ status, attempts: 1, replayed: false });
    },
  );

  it('reports a replay of the first response', async () => {
    const server = await serve({
      kind: 'status',
      status: 201,
      headers: { 'idempotent-replayed': 'true' },
      body: '{"balance":5}',
    });
    const response = await idempotentRequest(server.baseUrl, { body: {}, key: 'order-17' }, FAST);
    expect(response).toMatchObject({ status: 201, replayed: true, key: 'order-17' });
    expect(server.keys).toEqual(['"order-17"']);
  });

  it('retries an attempt that outlives timeoutMs with the same key', async () => {
    // Given a server that never answers the first request
    const server = await serve({ kind: 'hang' }, OK);

    // When an operation is sent with a short attempt timeout
    const response = await idempotentRequest(
      server.baseUrl,
      { body: {} },
      { ...FAST, timeoutMs: 200 },
    );

    // Then the second attempt carried the first one's key and got the answer
    expect(response).toMatchObject({ status: 201, attempts: 2 });
    expect(server.keys).toEqual([`"${response.key}"`, `"${response.key}"`]);
  });

  it('follows a 503 naming the leader to the base URL the caller maps it to', async () => {
    // Given a follower naming the leader's advertised address, and the leader
    const leader = await serve(OK);
    const follower = await serve({
      kind: 'status',
      status: 503,
      headers: { 'retry-after': '1', 'once-leader': '10.0.0.2:7400' },
    });

    // When an operation is sent to the follower with a map of advertised addresses
    const response = await idempotentRequest(
      `${follower.baseUrl}/ledger/deposit?trace=1`,
      { body: {} },
      { ...FAST, leaderUrl: { '10.0.0.2:7400': leader.baseUrl } },
    );

    // Then the leader got the same key, path and query, and answered
    expect(response).toMatchObject({
      status: 201,
      attempts: 2,
      url: `${leader.baseUrl}/ledger/deposit?trace=1`,
    });
    expect(follower.keys).toEqual([`"${response.key}"`]);
    expect(leader.keys).toEqual([`"${response.key}"`]);
    expect(leader.received[0].url).toBe('/ledger/deposit?trace=1');
  });

  it('asks a resolver function for the leader, and stays put when it does not know the address', async () => {
    const server = await serve(
      {
        kind: 'status',
        status: 503,
        headers: { 'retry-after': '0', 'once-leader': 'elsewhere:1' },
      },
      OK,
    );
    const asked: string[] = [];
    const response = await idempotentRequest(
      server.baseUrl,
      { body: {} },
      { ...FAST, leaderUrl: (address) => (asked.push(address), undefined) },
    );
    expect(asked).toEqual(['elsewhere:1']);
    expect(response).toMatchObject({ status: 201, attempts: 2, url: `${server.baseUrl}/` });
  });

  it('keeps following hints when two nodes name each other, and gives up after attemptsMax', async () => {
    // Given two nodes that each name the other as the leader
    const first = await serve({
      kind: 'status',
      status: 503,
      headers: { 'once-leader': 'second' },
    });
    const second = await serve({
      kind: 'status',
      status: 503,
      headers: { 'once-leader': 'first' },
    });
    const leaderUrl = { first: first.baseUrl, second: second.baseUrl };

    // When an operation is sent to the first
    const failure = await idempotentRequest(
      first.baseUrl,
      { body: {} },
      { ...FAST, attemptsMax: 4, leaderUrl },
    ).catch((error: unknown) => error);

    // Then the attempts alternated, all under one key, and the outcome is unknown
    expect(failure).toMatchObject({ code: 'HTTP_OUTCOME_UNKNOWN', attempts: 4, status: 503 });
    const key = `"${(failure as HttpOutcomeUnknownError).key}"`;
    expect([first.keys, second.keys]).toEqual([
      [key, key],
      [key, key],
    ]);
  });

  it('refuses a body on a GET or HEAD before sending, as fetch would at every attempt', async () => {
    await expect(
      idempotentRequest('http://127.0.0.1:9/', { method: 'get', body: {} }),
    ).rejects.toThrow(InvalidOptionsError);
  });

  it('retries 502 and 504 too', async () => {
    const server = await serve(
      { kind: 'status', status: 502 },
      { kind: 'status', status: 504 },
      OK,
    );
    const response = await idempotentRequest(server.baseUrl, { body: {} }, FAST);
    expect(response).toMatchObject({ status: 201, attempts: 3 });
    expect(new Set(server.keys).size).toBe(1);
  });

  it('gives up after attemptsMax with the key to retry with, and a later call with it carries it', async () => {
    // Given a server that stays in flight
    const server = await serve(IN_FLIGHT);

    // When an operation runs out of attempts
    const failure = await idempotentRequest(
      server.baseUrl,
      { body: {} },
      { ...FAST, attemptsMax: 3 },
    ).catch((error: unknown) => error);

    // Then the error says the outcome is unknown, with the key
    expect(failure).toBeInstanceOf(HttpOutcomeUnknownError);
    const unknown = failure as HttpOutcomeUnknownError;
    expect(unknown).toMatchObject({ code: 'HTTP_OUTCOME_UNKNOWN', attempts: 3, status: 409 });
    expect(server.keys).toEqual(Array(3).fill(`"${unknown.key}"`));

    // And a later call with that key sends it again
    await idempotentRequest(
      server.baseUrl,
      { body: {}, key: unknown.key },
      { ...FAST, attemptsMax: 1 },
    ).catch(() => undefined);
    expect(server.keys[3]).toBe(`"${unknown.key}"`);
  });

  it('keeps the last network failure as the cause when no attempt got an answer', async () => {
    const server = await serve({ kind: 'drop' });
    const failure = await idempotentRequest(server.baseUrl, {}, { ...FAST, attemptsMax: 2 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(HttpOutcomeUnknownError);
    expect(failure).toMatchObject({ attempts: 2, status: undefined });
    expect((failure as Error).cause).toBeDefined();
  });

  it("rejects with the caller's abort reason and stops retrying", async () => {
    const server = await serve({ kind: 'hang' });
    const controller = new AbortController();
    const sent = idempotentRequest(server.baseUrl, { body: {}, signal: controller.signal }, FAST);
    await waitFor(() => server.received.length === 1);
    controller.abort(new Error('caller gave up'));
    await expect(sent).rejects.toThrow('caller gave up');
    expect(server.received).toHaveLength(1);
  });

  it('escapes a key for its sf-string and refuses keys and headers it cannot send', async () => {
    const server = await serve(OK);
    await idempotentRequest(server.baseUrl, { key: 'a"b\\c' }, FAST);
    expect(server.keys).toEqual(['"a\\"b\\\\c"']);
    await expect(idempotentRequest(server.baseUrl, { key: '' })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(idempotentRequest(server.baseUrl, { key: 'café' })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(
      idempotentRequest(server.baseUrl, { headers: { 'Idempotency-Key': '"k"' } }),
    ).rejects.toThrow(InvalidOptionsError);
    expect(server.received).toHaveLength(1);
  });

  it.each([
    [{ attemptsMax: 0 }],
    [{ attemptsMax: 1.5 }],
    [{ delayMs: -1 }],
    [{ delayMs: 10, delayMsMax: 5 }],
    [{ timeoutMs: 0 }],
    [{ timeoutMs: Number.NaN }],
  ])('refuses the options %j before sending', async (options) => {
    await expect(idempotentRequest('http://127.0.0.1:9/', {}, options)).rejects.toThrow(
      InvalidOptionsError,
    );
  });
});

/** Resolves once `condition` holds, checking at every turn of the event loop. */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
