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
}

/** The status of a deposit that was applied (or replayed): 201 Created. */
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
 * depth 1 for that reason. A request is OK when answered 201; any other
 * status or a failed request counts as an error.
 */
export class HttpLoadConnection implements LoadConnection {
  onAnswered: (count: number) => void = () => undefined;

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly keyPrefix = randomBytes(8).toString('hex');
  private readonly body: Buffer;
  private nextId = 1;
  private inFlightCount = 0;

  constructor(
    private readonly target: HttpTarget,
    private readonly stats: LoadStats,
  ) {
    this.body = Buffer.from(
      JSON.stringify(benchPayload(`bench-${this.keyPrefix}`, target.payloadBytes)),
    );
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
    const key = `"${this.keyPrefix}-${this.nextId++}"`;
    const outgoing = request(
      {
        agent: this.agent,
        host: this.target.host,
        port: this.target.port,
        method: 'POST',
        path: this.target.path ?? '/ledger/deposit',
        headers: {
          'content-type': 'application/json',
          'content-length': this.body.length,
          'idempotency-key': key,
        },
      },
      (response) => {
        response.resume(); // the body is not read: the status says what the bench needs
        response.once('end', () => this.answer(sentAtMs, response.statusCode === CREATED));
        response.once('error', () => this.answer(sentAtMs, false));
      },
    );
    outgoing.once('error', () => this.answer(sentAtMs, false));
    outgoing.end(this.body);
  }

  private answer(sentAtMs: number, ok: boolean): void {
    this.stats.answered(sentAtMs, performance.now(), ok);
    this.inFlightCount--;
    this.onAnswered(1);
  }
}
