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
import {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerOptions,
  type ServerResponse,
  createServer,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, type Socket } from 'node:net';
import { ConnectionCap } from './connection-cap';
import { hostAllowed } from './host-check';
import { JOURNAL_WAIT_MS_MAX, JournalFeed } from './journal-feed';
import { journalQueryOf } from './journal-query';
import { OPERATIONS_AUTH_CHALLENGE, type OperationsCredential } from './operations-credential';

/**
 * The operations listener's settings (`metricsHost`, `metricsPort`,
 * `journalFeed` and the `operations*` rows of the settings table).
 */
export interface OperationsHttpOptions {
  readonly host: string;
  /** 0: any free port (the log line names it). */
  readonly port: number;
  /**
   * Serve `GET /journal` (the `journalFeed` setting). Default false: the
   * route answers 404. Needs `credential`: the listener refuses to start
   * with the feed on and no credential (OPERATIONS_CREDENTIAL_MISSING).
   */
  readonly journalFeed?: boolean;
  /**
   * The token requests must present (`Authorization: Bearer …`, or basic
   * auth's password). Default none: only `/metrics` and `/health/*` are served.
   */
  readonly credential?: OperationsCredential;
  /** With a credential: `all` routes need it (default), or only `/journal`. */
  readonly authScope?: 'all' | 'journal';
  /** PEM key and certificate: serve HTTPS. Default: plain HTTP. */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
  /** Host names answered besides IP literals and `localhost` (see `hostAllowed`). Default none. */
  readonly allowedHosts?: readonly string[];
  /**
   * Open connections at most; beyond it the oldest idle one is closed (see
   * `ConnectionCap`), or the new one when all are serving. Default 256.
   */
  readonly connectionsMax?: number;
  /** A connection must send a request's headers within this; idle keep-alives close sooner. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** `/journal` requests waiting for new entries at once; beyond: 503 FEED_BUSY. Default 64. */
  readonly feedWaitersMax?: number;
}

export const OPERATIONS_HTTP_OPTIONS = Symbol.for('once:operations-http-options');

/** The journal feed is on and no credential protects it. */
export class OperationsCredentialMissingError extends Error {
  readonly code = 'OPERATIONS_CREDENTIAL_MISSING';
}

const JSON_TYPE = 'application/json; charset=utf-8';
const CONNECTIONS_MAX_DEFAULT = 256;
const HEADERS_TIMEOUT_MS_DEFAULT = 10_000;
const FEED_WAITERS_MAX_DEFAULT = 64;
/** Idle keep-alive connections close after this at most (or the headers timeout, if shorter). */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** What a refused long-poll is told to wait before asking again. */
const FEED_BUSY_RETRY_AFTER_S = 1;

/**
 * The reference service's operations listener: `GET /metrics` (Prometheus
 * text), `GET /health/live` and `GET /health/ready` (terminus's JSON, 200 or
 * 503), and with the journal feed on, `GET /journal` (see
 * {@link JournalFeed}). Served by node's `http` (or `https`) module calling
 * terminus's `HealthCheckService`: the service is a NestJS microservice with
 * no HTTP platform, and a few read-only routes do not justify adding Express.
 *
 * It shares the process, and its file descriptors, with the client port, so
 * it bounds what it holds: at most `connectionsMax` connections (see
 * {@link ConnectionCap}), a connection that sends no request headers in time is closed, and
 * long-polls beyond `feedWaitersMax` are answered 503. Every request is
 * checked, in this order: its `Host` (DNS rebinding: 403 HOST_NOT_ALLOWED),
 * its credential (401 UNAUTHORIZED with `WWW-Authenticate`), then routed.
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
  private port = 0;
  private feedWaiters = 0;

  constructor(
    @Inject(OPERATIONS_HTTP_OPTIONS) private readonly options: OperationsHttpOptions,
    private readonly health: HealthCheckService,
    private readonly once: OnceHealthIndicator,
    private readonly metrics: OnceMetrics,
    private readonly runtime: OnceRuntime,
  ) {
    if (options.journalFeed === true && options.credential === undefined) {
      throw new OperationsCredentialMissingError(
        'OPERATIONS_CREDENTIAL_MISSING: the journal feed needs a credential ' +
          '(ONCE_OPERATIONS_TOKEN_FILE, --operations-token-file)',
      );
    }
    const disclosure = runtime.commandDisclosure.bind(runtime);
    this.feed = new JournalFeed(
      () => runtime.journal,
      () => {
        const declared = disclosure();
        return { kind: 'declared', sensitive: (pattern) => declared.get(pattern) };
      },
    );
  }

  async onModuleInit(): Promise<void> {
    const headersTimeout = this.options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS_DEFAULT;
    const serverOptions: ServerOptions = {
      headersTimeout,
      // Receiving a GET's request takes no longer than its headers; the answer may (a long-poll).
      requestTimeout: headersTimeout + JOURNAL_WAIT_MS_MAX,
      keepAliveTimeout: Math.min(KEEP_ALIVE_TIMEOUT_MS, headersTimeout),
      // The timeouts are enforced by a sweep at this interval (node's default is 30 s).
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
    };
    const listener: RequestListener = (request, response) => {
      this.route(request, response).catch((error: unknown) => {
        this.logger.error(`${pathOf(request)}: ${String(error)}`);
        if (!response.headersSent) send(response, 500, JSON_TYPE, '{"status":"error"}');
        else response.destroy();
      });
    };
    const server = this.options.tls
      ? createHttpsServer({ ...serverOptions, ...this.options.tls }, listener)
      : createServer(serverOptions, listener);
    const cap = new ConnectionCap(this.options.connectionsMax ?? CONNECTIONS_MAX_DEFAULT);
    server.on('connection', (socket: Socket) => cap.admit(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      cap.track(request, response),
    );
    server.on('clientError', (_error, socket) => socket.destroy());
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { address, port } = server.address() as AddressInfo;
    this.port = port;
    const scheme = this.options.tls ? 'https' : 'http';
    const auth =
      this.options.credential === undefined
        ? 'no credential'
        : `credential required by ${this.options.authScope === 'journal' ? '/journal' : 'every route'}`;
    const feed = this.options.journalFeed === true ? ', journal feed on' : '';
    this.logger.log(`metrics and health served at ${scheme}://${address}:${port} (${auth}${feed})`);
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
    if (
      !hostAllowed(request.headers.host, {
        port: this.port,
        names: this.options.allowedHosts ?? [],
      })
    ) {
      return sendError(
        response,
        403,
        'HOST_NOT_ALLOWED',
        'this Host is not one the listener answers (ONCE_OPERATIONS_ALLOWED_HOSTS)',
      );
    }
    if (
      this.needsCredential(path) &&
      !this.options.credential?.matches(request.headers.authorization)
    ) {
      response.setHeader('www-authenticate', OPERATIONS_AUTH_CHALLENGE);
      return sendError(response, 401, 'UNAUTHORIZED', 'a valid operations credential is required');
    }
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

  /**
   * Whether `path` needs the credential: `/journal` always (with the feed
   * off it answers 404 to anyone: there is nothing to protect), every other
   * path when a credential is set and the scope is `all`.
   */
  private needsCredential(path: string): boolean {
    if (path === '/journal') return this.options.journalFeed === true;
    return this.options.credential !== undefined && this.options.authScope !== 'journal';
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
    const waits = query.waitMs > 0;
    if (waits && this.feedWaiters >= (this.options.feedWaitersMax ?? FEED_WAITERS_MAX_DEFAULT)) {
      response.setHeader('retry-after', String(FEED_BUSY_RETRY_AFTER_S));
      return sendError(
        response,
        503,
        'FEED_BUSY',
        'too many requests are waiting for new entries (ONCE_JOURNAL_FEED_WAITERS_MAX)',
      );
    }
    if (waits) this.feedWaiters++;
    try {
      const left = new AbortController();
      response.once('close', () => left.abort());
      const page = await this.feed.page(query, left.signal);
      if (!request.destroyed) send(response, 200, JSON_TYPE, JSON.stringify(page));
    } finally {
      if (waits) this.feedWaiters--;
    }
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

/** The request's path without its query (which may carry anything), for a log line. */
function pathOf(request: IncomingMessage): string {
  return (request.url ?? '').split('?', 1)[0];
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  send(response, status, JSON_TYPE, JSON.stringify({ status: 'error', code, message }));
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}
