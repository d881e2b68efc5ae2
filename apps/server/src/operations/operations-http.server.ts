import {
  HttpException,
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { OnceRuntime } from '@once/framework';
import { OnceHealthIndicator, OnceMetrics } from '@once/metrics';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { JournalFeed } from './journal-feed';
import { journalQueryOf } from './journal-query';

/** Where the operations listener listens (the `metricsHost` and `metricsPort` settings). */
export interface OperationsHttpOptions {
  readonly host: string;
  /** 0: any free port (the log line names it). */
  readonly port: number;
  /** Serve `GET /journal` (the `journalFeed` setting). Default false: the route answers 404. */
  readonly journalFeed?: boolean;
}

export const OPERATIONS_HTTP_OPTIONS = Symbol.for('once:operations-http-options');

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The reference service's operations listener: `GET /metrics` (Prometheus
 * text), `GET /health/live` and `GET /health/ready` (terminus's JSON, 200 or
 * 503), and with the journal feed on, `GET /journal` (see
 * {@link JournalFeed}). Served by node's `http` module calling terminus's
 * `HealthCheckService`: the service is a NestJS microservice with no HTTP
 * platform, and a few read-only routes do not justify adding Express.
 *
 * It listens at module init, before the journal replays (which starts at
 * application bootstrap), so readiness answers 503 throughout the replay;
 * it closes at application shutdown.
 */
@Injectable()
export class OperationsHttpServer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('OnceOperations');
  private server: Server | undefined;
  private readonly feed: JournalFeed;

  constructor(
    @Inject(OPERATIONS_HTTP_OPTIONS) private readonly options: OperationsHttpOptions,
    private readonly health: HealthCheckService,
    private readonly once: OnceHealthIndicator,
    private readonly metrics: OnceMetrics,
    private readonly runtime: OnceRuntime,
  ) {
    this.feed = new JournalFeed(() => runtime.journal);
  }

  async onModuleInit(): Promise<void> {
    const server = createServer((request, response) => {
      this.route(request, response).catch((error: unknown) => {
        this.logger.error(`${request.url ?? ''}: ${String(error)}`);
        if (!response.headersSent) send(response, 500, JSON_TYPE, '{"status":"error"}');
        else response.destroy();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { address, port } = server.address() as AddressInfo;
    this.logger.log(`metrics and health served at http://${address}:${port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://operations');
    const path = url.pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(response, 405, JSON_TYPE, '{"status":"error","message":"GET only"}');
    }
    switch (path) {
      case '/metrics':
        return send(response, 200, this.metrics.contentType, await this.metrics.metrics());
      case '/health/live':
        return this.check(response, () => this.once.isLive('once'));
      case '/health/ready':
        return this.check(response, () => this.once.isReady('once'));
      case '/journal':
        return this.journal(url.searchParams, request, response);
      default:
        return send(response, 404, JSON_TYPE, '{"status":"error","message":"not found"}');
    }
  }

  /** A page of the journal feed, or the error saying why not (stable `code`s, no internals). */
  private async journal(
    params: URLSearchParams,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    if (this.options.journalFeed !== true) {
      return sendError(
        response,
        404,
        'JOURNAL_FEED_OFF',
        'the journal feed is off (ONCE_JOURNAL_FEED=on serves it)',
      );
    }
    const query = journalQueryOf(params);
    if (typeof query === 'string') return sendError(response, 400, 'INVALID_QUERY', query);
    if (!this.runtime.opened) {
      return sendError(response, 503, 'NOT_OPEN', 'the data directory is not open yet');
    }
    const left = new AbortController();
    response.once('close', () => left.abort());
    const page = await this.feed.page(query, left.signal);
    if (!request.destroyed) send(response, 200, JSON_TYPE, JSON.stringify(page));
  }

  /** Terminus's verdict: its result with 200, or the body of its ServiceUnavailableException with 503. */
  private async check(
    response: ServerResponse,
    indicator: () => ReturnType<OnceHealthIndicator['isLive']>,
  ): Promise<void> {
    try {
      const result = await this.health.check([indicator]);
      send(response, 200, JSON_TYPE, JSON.stringify(result));
    } catch (error) {
      if (!(error instanceof HttpException)) throw error;
      send(response, error.getStatus(), JSON_TYPE, JSON.stringify(error.getResponse()));
    }
  }
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  send(response, status, JSON_TYPE, JSON.stringify({ status: 'error', code, message }));
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}
