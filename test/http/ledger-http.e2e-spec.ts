import { freePorts, type ServiceProcess } from '@once/testing';
import { ADMIN_BASIC_AUTH as AUTH, startService } from '../support/wire';

jest.setTimeout(180_000);

/** One HTTP request to the service, answered as status, headers and body text. */
async function send(
  url: string,
  init: { method?: string; key?: string; body?: unknown; auth?: string | null } = {},
): Promise<{ status: number; replayed: string | null; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.auth !== null) headers.authorization = init.auth ?? AUTH;
  if (init.key !== undefined) headers['idempotency-key'] = `"${init.key}"`;
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    text: await response.text(),
  };
}

describe('given the reference service with its ledger over HTTP (ONCE_HTTP_PORT)', () => {
  let service: ServiceProcess;
  let base: string;

  beforeAll(async () => {
    const [httpPort] = await freePorts(1);
    service = await startService({ ONCE_HTTP_PORT: String(httpPort) });
    base = `http://127.0.0.1:${httpPort}`;
  });
  afterAll(async () => {
    await service?.cleanup();
  });

  it('when a caller has no credentials, then every route answers 401 UNAUTHENTICATED', async () => {
    const answer = await send(`${base}/ledger/open`, {
      key: 'k-anon',
      body: { account: 'x' },
      auth: null,
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'UNAUTHENTICATED' });
    const wrong = `Basic ${Buffer.from('admin:wrong').toString('base64')}`;
    expect(
      (await send(`${base}/ledger/balance?account=x`, { method: 'GET', auth: wrong })).status,
    ).toBe(401);
  });

  it('when the admin opens an account and deposits with a key, then a retry with that key gets the same answer and the deposit counts once', async () => {
    // Given an account
    const opened = await send(`${base}/ledger/open`, { key: 'open-a', body: { account: 'a' } });
    expect(opened).toEqual({ status: 200, replayed: 'false', text: '{"account":"a","balance":0}' });

    // When a deposit is sent twice with one key
    const first = await send(`${base}/ledger/deposit`, {
      key: 'dep-1',
      body: { account: 'a', amount: 5 },
    });
    const retry = await send(`${base}/ledger/deposit`, {
      key: 'dep-1',
      body: { account: 'a', amount: 5 },
    });

    // Then the retry is the first answer, replayed, and the balance moved once
    expect(first).toEqual({ status: 200, replayed: 'false', text: '{"balance":5}' });
    expect(retry).toEqual({ ...first, replayed: 'true' });
    const balance = await send(`${base}/ledger/balance?account=a`, { method: 'GET' });
    expect(balance.status).toBe(200);
    expect(JSON.parse(balance.text)).toEqual({ balance: 5 });
  });

  it('when a write has no Idempotency-Key, then it is refused 400 and changes nothing', async () => {
    const answer = await send(`${base}/ledger/deposit`, { body: { account: 'a', amount: 1 } });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'IDEMPOTENCY_KEY_MISSING' });
    const balance = await send(`${base}/ledger/balance?account=a`, { method: 'GET' });
    expect(JSON.parse(balance.text)).toEqual({ balance: 5 });
  });

  it('when a key is reused with another body, then it is refused 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const answer = await send(`${base}/ledger/deposit`, {
      key: 'dep-1',
      body: { account: 'a', amount: 6 },
    });
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('when the ledger refuses a transfer, then the refusal is the TCP refusal as 422, replayed byte for byte', async () => {
    const body = { from: 'a', to: 'nobody', amount: 1 };
    const first = await send(`${base}/ledger/transfer`, { key: 'tr-1', body });
    expect(first.status).toBe(422);
    expect(JSON.parse(first.text)).toEqual({
      code: 'ACCOUNT_NOT_FOUND',
      message: 'no account "nobody"',
    });
    expect(await send(`${base}/ledger/transfer`, { key: 'tr-1', body })).toEqual({
      ...first,
      replayed: 'true',
    });
  });
});
