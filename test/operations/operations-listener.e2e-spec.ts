import { Operation, randomClientId } from '@once/protocol';
import { OnceClient } from '@once/sdk';
import { RawClient, ServiceProcess, ServiceStartError, eventually, freePorts } from '@once/testing';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type IncomingHttpHeaders, request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandOk, registerOk } from '../support/sessions';
import { makeCertificateAuthority, makeServerCertificate } from '../support/tls-certificates';
import { ADMIN_PASSWORD } from '../support/wire';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'libs/cli/dist/main.js');
/** How deep the hostile command's JSON is nested: 200 KB of brackets, well within a frame. */
const DEEP = 100_000;
/** The long-poll cap of the first service. */
const WAITERS_MAX = 8;
const TOO_DEEP = '[nested deeper than 64 levels]';

interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * GET on its own connection (no agent: a long-poll holds one), with any
 * headers, `Host` included (fetch forbids setting it).
 */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function json<T>(answer: HttpAnswer): T {
  return JSON.parse(answer.body) as T;
}

interface FeedEntry {
  readonly op: number;
  readonly kind: string;
  readonly pattern: string | null;
  readonly body: unknown;
}
interface FeedPage {
  readonly durableOp: number;
  readonly entries: FeedEntry[];
}

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A token file holding a fresh random token; returns both. */
async function tokenFileIn(dir: string): Promise<{ file: string; token: string }> {
  const token = randomBytes(24).toString('hex');
  const file = join(dir, 'operations-token');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return { file, token };
}

describe('given the reference service with the journal feed on, protected by an operations token', () => {
  let dir: string;
  let service: ServiceProcess;
  let metricsPort: number;
  let token: string;
  let tokenFile: string;
  let auth: Record<string, string>;
  let client: OnceClient;
  let deepOp: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-ops-'));
    ({ file: tokenFile, token } = await tokenFileIn(dir));
    auth = { authorization: `Bearer ${token}` };
    [metricsPort] = await freePorts(1);
    service = await ServiceProcess.start({
      dataDir: join(dir, 'data'),
      env: {
        ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ONCE_METRICS_PORT: String(metricsPort),
        ONCE_JOURNAL_FEED: 'on',
        ONCE_OPERATIONS_TOKEN_FILE: tokenFile,
        ONCE_JOURNAL_FEED_WAITERS_MAX: String(WAITERS_MAX),
      },
    });
    client = await OnceClient.connect({
      port: service.port,
      username: 'admin',
      password: ADMIN_PASSWORD,
    });
    await client.command('ledger.open', { account: 'ops' });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await service?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('when /journal is asked without the credential or with a wrong one, then 401 with WWW-Authenticate; with it, the page', async () => {
    // When
    const none = await get(metricsPort, '/journal?limit=1');
    const wrong = await get(metricsPort, '/journal?limit=1', {
      authorization: `Bearer ${token.slice(0, -1)}x`,
    });
    const right = await get(metricsPort, '/journal?limit=1', auth);
    const basic = await get(metricsPort, '/journal?limit=1', {
      authorization: `Basic ${Buffer.from(`prometheus:${token}`).toString('base64')}`,
    });

    // Then
    for (const refused of [none, wrong]) {
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm="once-operations"/);
      expect(json(refused)).toEqual({
        status: 'error',
        code: 'UNAUTHORIZED',
        message: 'a valid operations credential is required',
      });
      expect(refused.body).not.toContain('ledger');
    }
    expect(right.status).toBe(200);
    expect(json<FeedPage>(right).entries).toHaveLength(1);
    expect(basic.status).toBe(200);
  });

  it('when /metrics and /health/live are asked without the credential, then 401; with it, they answer', async () => {
    expect((await get(metricsPort, '/metrics')).status).toBe(401);
    expect((await get(metricsPort, '/health/live')).status).toBe(401);
    expect((await get(metricsPort, '/nowhere')).status).toBe(401);
    const metrics = await get(metricsPort, '/metrics', auth);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('once_sessions');
    expect((await get(metricsPort, '/health/live', auth)).status).toBe(200);
  });

  it('when a request names a Host the listener does not answer (DNS rebinding), then 403 HOST_NOT_ALLOWED even with the credential', async () => {
    // When a page of evil.example, rebound to 127.0.0.1, asks with the browser's Host
    const rebound = await get(metricsPort, '/journal?limit=1', {
      ...auth,
      host: `evil.example:${metricsPort}`,
    });
    const otherPort = await get(metricsPort, '/health/live', {
      ...auth,
      host: `localhost:${metricsPort + 1}`,
    });

    // Then
    expect(rebound.status).toBe(403);
    expect(json(rebound)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect(rebound.body).not.toContain('ledger');
    expect(otherPort.status).toBe(403);
    for (const host of [`localhost:${metricsPort}`, `127.0.0.1:${metricsPort}`, 'localhost']) {
      expect((await get(metricsPort, '/health/live', { ...auth, host })).status).toBe(200);
    }
  });

  it('when more long-polls wait than the cap, then the extra ones get 503 FEED_BUSY with Retry-After, and a commit answers the others', async () => {
    // Given as many long-polls as the cap, waiting after the last op
    const { durableOp } = json<FeedPage>(await get(metricsPort, '/journal?limit=1', auth));
    const waitPath = `/journal?after=${durableOp}&wait_ms=30000`;
    const waiting = Array.from({ length: WAITERS_MAX }, () => get(metricsPort, waitPath, auth));
    const probePath = `/journal?after=${durableOp}&wait_ms=1`;
    await eventually(
      async () => (await get(metricsPort, probePath, auth)).status === 503,
      'the long-polls to be counted',
    );

    // When more arrive
    const extra = await Promise.all(
      Array.from({ length: 20 }, () => get(metricsPort, waitPath, auth)),
    );

    // Then each is refused at once, saying when to come back
    for (const answer of extra) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(json(answer)).toMatchObject({ code: 'FEED_BUSY' });
    }

    // And a commit wakes the waiting ones, after which the feed takes long-polls again
    await client.command('ledger.deposit', { account: 'ops', amount: 1 });
    for (const answer of await Promise.all(waiting)) {
      expect(answer.status).toBe(200);
      expect(json<FeedPage>(answer).entries.length).toBeGreaterThan(0);
    }
    await eventually(
      async () => (await get(metricsPort, probePath, auth)).status === 200,
      'the cap to free up',
    );
  });

  it('when a user commits a command nested 100,000 deep, then /journal serves its range, the body cut at 64 levels', async () => {
    // Given a logged-in user's command whose data nests 100,000 arrays
    const raw = await RawClient.connect(service.port);
    try {
      const { session } = await registerOk(raw, randomClientId());
      const body = `{"pattern":"ledger.deposit","data":{"account":"ops","amount":2,"memo":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}}`;
      const reply = await raw.request(
        {
          operation: Operation.Command,
          client: session.client,
          session: session.epoch,
          request: 1,
          resumeToken: session.resumeToken,
        },
        body,
        30_000,
      );
      deepOp = reply.header.op;
      // The journal took it (OK: the handler reads account and amount only).
      await commandOk(raw, session, 2, 'ledger.deposit', { account: 'ops', amount: 3 });
    } finally {
      raw.close();
    }

    // When the feed is asked for that op, and for the last entries around it
    const one = await get(metricsPort, `/journal?after=${deepOp - 1}&limit=1`, auth);
    const around = await get(metricsPort, `/journal?after=${deepOp - 3}&limit=10`, auth);

    // Then both answer, the deep body printed to 64 levels
    expect(one.status).toBe(200);
    const [entry] = json<FeedPage>(one).entries;
    expect(entry).toMatchObject({ op: deepOp, pattern: 'ledger.deposit' });
    expect(entry.body).toMatchObject({ account: 'ops', amount: 2 });
    expect(one.body).toContain(`${'['.repeat(63)}"${TOO_DEEP}"`);
    expect(around.status).toBe(200);
    expect(json<FeedPage>(around).entries.map((view) => view.op)).toContain(deepOp);
  });

  it('when users.create and a deposit carrying an apiKey commit, then the feed redacts what users.create declared and the apiKey', async () => {
    // When
    await client.command('users.create', { username: 'erin', password: 'erin-pw-0451' });
    await client.command('ledger.deposit', {
      account: 'ops',
      amount: 4,
      apiKey: 'sk-live-0451',
    });
    const page = json<FeedPage>(await get(metricsPort, '/journal?limit=20', auth));

    // Then
    const created = page.entries.filter((entry) => entry.pattern === 'users.create').at(-1);
    expect(created?.body).toEqual({ username: 'erin', salt: '[redacted]', hash: '[redacted]' });
    const deposit = page.entries.filter((entry) => entry.pattern === 'ledger.deposit').at(-1);
    expect(deposit?.body).toEqual({ account: 'ops', amount: 4, apiKey: '[redacted]' });
    expect(JSON.stringify(page)).not.toMatch(/erin-pw|sk-live/);
  });

  it('when `once journal tail --metrics-url` reads the node, then it needs the token file, and prints with it', async () => {
    const url = `http://127.0.0.1:${metricsPort}`;
    const without = await cli('journal', 'tail', '-n', '5', '--metrics-url', url, '--json');
    expect(without.code).toBe(1);
    expect(without.stdout + without.stderr).toContain('UNAUTHORIZED');
    const withToken = await cli(
      'journal',
      'tail',
      '-n',
      '50',
      '--metrics-url',
      url,
      '--operations-token-file',
      tokenFile,
      '--json',
    );
    expect(withToken.code).toBe(0);
    const tail = JSON.parse(withToken.stdout) as { entries: FeedEntry[] };
    expect(tail.entries.map((entry) => entry.op)).toContain(deepOp);
    expect(withToken.stdout).not.toContain(token);
  });

  it('when `once status --metrics-url` scrapes /metrics, then it needs the token file, and reads the sessions gauge with it', async () => {
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    const args = ['status', '--port', String(service.port), '--metrics-url', url, '--json'];
    const without = await cli(...args);
    expect(without.code).toBe(1);
    expect(JSON.parse(without.stdout)).toMatchObject({
      error: { code: 'METRICS_UNREACHABLE', message: expect.stringContaining('HTTP 401') },
    });
    const withToken = await cli(...args, '--operations-token-file', tokenFile);
    expect(withToken.code).toBe(0);
    expect(JSON.parse(withToken.stdout)).toMatchObject({ sessions: expect.any(Number) });
  });

  it('then, on the stopped directory, `journal show` and `journal tail` print the deep entry, bodies withheld unless --show-bodies', async () => {
    // Given
    await client.close();
    expect(await service.stop()).toBe(0);
    const dataDir = join(dir, 'data');

    // When
    const show = await cli('journal', 'show', String(deepOp), '-d', dataDir, '--json');
    const shown = await cli(
      'journal',
      'show',
      String(deepOp),
      '-d',
      dataDir,
      '--show-bodies',
      '--json',
    );
    const tail = await cli('journal', 'tail', '-n', '1000', '-d', dataDir);
    const tailShown = await cli('journal', 'tail', '-n', '1000', '-d', dataDir, '--show-bodies');

    // Then
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      op: deepOp,
      pattern: 'ledger.deposit',
      body: '[withheld]',
    });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ body: { account: 'ops', amount: 2 } });
    expect(shown.stdout).toContain(TOO_DEEP);
    expect(tail.code).toBe(0);
    expect(tail.stdout).toMatch(new RegExp(`op ${deepOp} .* ledger\\.deposit "\\[withheld\\]"`));
    expect(tailShown.code).toBe(0);
    expect(tailShown.stdout).toContain(TOO_DEEP);
    expect(tailShown.stdout).not.toMatch(/erin-pw|sk-live/);
  });
});

describe('given the journal feed on and no operations token', () => {
  /** Starts a service in `dir` with the journal feed on and `env` besides (a start expected to be refused). */
  async function startWithFeedOn(dir: string, env: Record<string, string> = {}) {
    const [metricsPort] = await freePorts(1);
    return ServiceProcess.start({
      dataDir: join(dir, 'data'),
      env: {
        ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ONCE_METRICS_PORT: String(metricsPort),
        ONCE_JOURNAL_FEED: 'on',
        ...env,
      },
    });
  }

  it('when the service starts, then it refuses: exit 2, OPERATIONS_CREDENTIAL_MISSING', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'once-ops-'));
    try {
      const started = startWithFeedOn(dir);
      await expect(started).rejects.toBeInstanceOf(ServiceStartError);
      await expect(started).rejects.toThrow(
        /invalid setting: OPERATIONS_CREDENTIAL_MISSING: the journal feed \(ONCE_JOURNAL_FEED=on\) needs a credential/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('when the token file is too short, then it refuses and names the file, never its content', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'once-ops-'));
    try {
      const file = join(dir, 'short-token');
      await writeFile(file, 'hunter2\n');
      const started = startWithFeedOn(dir, { ONCE_OPERATIONS_TOKEN_FILE: file });
      const error = (await started.catch((caught: unknown) => caught)) as Error;
      expect(error).toBeInstanceOf(ServiceStartError);
      expect(error.message).toContain(
        `OPERATIONS_CREDENTIAL_INVALID: the operations token in ${file}`,
      );
      expect(error.message).not.toContain('hunter2');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('given the operations listener serving HTTPS, /metrics and /health open (scope journal)', () => {
  let dir: string;
  let service: ServiceProcess;
  let metricsPort: number;
  let ca: Buffer;
  let caFile: string;
  let tokenFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'once-ops-tls-'));
    const authority = makeCertificateAuthority(dir);
    const server = makeServerCertificate(dir, { host: '127.0.0.1', signedBy: authority });
    ca = authority.cert;
    caFile = authority.certFile;
    ({ file: tokenFile } = await tokenFileIn(dir));
    [metricsPort] = await freePorts(1);
    service = await ServiceProcess.start({
      dataDir: join(dir, 'data'),
      env: {
        ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ONCE_METRICS_PORT: String(metricsPort),
        ONCE_OPERATIONS_TLS_KEY_FILE: server.keyFile,
        ONCE_OPERATIONS_TLS_CERT_FILE: server.certFile,
        ONCE_OPERATIONS_TOKEN_FILE: tokenFile,
        ONCE_OPERATIONS_AUTH_SCOPE: 'journal',
        ONCE_JOURNAL_FEED: 'on',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await service?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('when a client trusting its CA asks over HTTPS, then it answers; plain HTTP gets nothing', async () => {
    // When
    const live = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: metricsPort, path: '/health/live', ca, agent: false },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const plain = get(metricsPort, '/health/live').then(
      (answer) => answer.status,
      (error: Error) => error.message,
    );

    // Then
    expect(live).toBe(200);
    expect(await plain).not.toBe(200);
  });

  it('when `once status --metrics-url` scrapes it, then the sessions gauge is read without a credential (scope journal)', async () => {
    const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          CLI,
          'status',
          '--port',
          String(service.port),
          '--metrics-url',
          `https://127.0.0.1:${metricsPort}/metrics`,
          '--json',
        ],
        { cwd: ROOT, timeout: 30_000, env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile } },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ready: true, sessions: expect.any(Number) });
  });
});
