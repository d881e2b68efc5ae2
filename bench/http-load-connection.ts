import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { benchPayload } from './bench-payload';
import { type LoadConnection } from './load-connection';
import { type LoadStats } from './load-stats';

/** Where an HTTP load connection sends its deposits, and how big their bodies are. */
export interface HttpTarget {
  readonly host: string;
  readonly port: number;
  readonly payloadBytes: number;
  /** The deposit route. Default `/ledger/deposit`. */
  readonly path?: string;
  /**
   * The status of a deposit that was applied (or replayed). Default 201, a
   * NestJS `@Post` route's; once's ledger routes answer 200.
   */
  readonly okStatus?: number;
  /**
   * HTTP basic auth sent with every request (`authorization: Basic …`), as
   * once's ledger routes require. Default: none.
   */
  readonly basicAuth?: { readonly username: string; readonly password: string };
  /**
   * A route that opens the connection's account (`{account}`, under an
   * Idempotency-Key of its own), posted once before any deposit and answered
   * `okStatus`: once's ledger refuses a deposit to an account it does not
   * hold. Default: none (the peers create a balance at its first deposit).
   */
  readonly openPath?: string;
}

/** The status of a deposit that was applied (or replayed) on the peers: 201 Created. */
const CREATED = 201;

/**
 * One keep-alive HTTP/1.1 connection (an Agent of one socket) posting the
 * bench's payload as JSON to an HTTP peer, each request under an
 * `Idempotency-Key` new with it (`"<connection's 16 hex>-<n>"`, an
 * sf-string), as a client of an idempotent endpoint sends a new operation.
 *
 * HTTP/1.1 without pipelining carries one request at a time: requests sent
 * while one is in flight wait in the Agent's queue, and their latency counts
 * the wait, as a client's would. The load generator runs HTTP closed loops at
 * depth 1 for that reason. A request is OK when answered `okStatus` (201 by
 * default); any other status or a failed request counts as an error.
 */
export class HttpLoadConnection implements LoadConnection {
  onAnswered: (count: number) => void = () => undefined;

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly keyPrefix = randomBytes(8).toString('hex');
  private readonly account = `bench-${this.keyPrefix}`;
  private readonly body: Buffer;
  private readonly okStatus: number;
  private readonly headers: Readonly<Record<string, string | number>>;
  private nextId = 1;
  private inFlightCount = 0;

  private constructor(
    private readonly target: HttpTarget,
    private readonly stats: LoadStats,
  ) {
    this.body = Buffer.from(JSON.stringify(benchPayload(this.account, target.payloadBytes)));
    this.okStatus = target.okStatus ?? CREATED;
    const { basicAuth } = target;
    this.headers = {
      'content-type': 'application/json',
      ...(basicAuth && {
        authorization: `Basic ${Buffer.from(`${basicAuth.username}:${basicAuth.password}`).toString('base64')}`,
      }),
    };
  }

  /**
   * A connection ready for the load: with `openPath`, its account opened
   * first (the one request not measured), else at once.
   */
  static async open(target: HttpTarget, stats: LoadStats): Promise<HttpLoadConnection> {
    const connection = new HttpLoadConnection(target, stats);
    if (target.openPath !== undefined) await connection.openAccount(target.openPath);
    return connection;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  send(count: number): void {
    const now = performance.now();
    this.inFlightCount += count;
    this.stats.sent(count, now);
    for (let i = 0; i < count; i++) this.post(now);
  }

  close(): void {
    this.agent.destroy();
  }

  private post(sentAtMs: number): void {
    this.postJson(this.target.path ?? '/ledger/deposit', this.body, (ok) =>
      this.answer(sentAtMs, ok),
    );
  }

  /** POSTs `{account}` to `path` on this connection and fails unless it answers `okStatus`. */
  private openAccount(path: string): Promise<void> {
    const body = Buffer.from(JSON.stringify({ account: this.account }));
    return new Promise((resolve, reject) =>
      this.postJson(path, body, (ok, status) =>
        ok
          ? resolve()
          : reject(
              new Error(
                `POST ${path} for ${this.account}: ${status ?? 'no answer'}, not ${this.okStatus}`,
              ),
            ),
      ),
    );
  }

  /**
   * One POST of `body` under a new Idempotency-Key; `done` once, with whether
   * it was answered `okStatus` (and the status, when there was one).
   */
  private postJson(path: string, body: Buffer, done: (ok: boolean, status?: number) => void): void {
    const key = `"${this.keyPrefix}-${this.nextId++}"`;
    let settled = false;
    const settle = (ok: boolean, status?: number) => {
      if (settled) return;
      settled = true;
      done(ok, status);
    };
    const outgoing = request(
      {
        agent: this.agent,
        host: this.target.host,
        port: this.target.port,
        method: 'POST',
        path,
        headers: { ...this.headers, 'content-length': body.length, 'idempotency-key': key },
      },
      (response) => {
        response.resume(); // the body is not read: the status says what the bench needs
        const status = response.statusCode;
        response.once('end', () => settle(status === this.okStatus, status));
        response.once('error', () => settle(false, status));
      },
    );
    outgoing.once('error', () => settle(false));
    outgoing.end(body);
  }

  private answer(sentAtMs: number, ok: boolean): void {
    this.stats.answered(sentAtMs, performance.now(), ok);
    this.inFlightCount--;
    this.onAnswered(1);
  }
}
