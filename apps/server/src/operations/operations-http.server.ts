import {
  HttpException,
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HealthCheckService } from '@nestjs/terminus';
import { OnceHealthIndicator, OnceMetrics } from '@once/metrics';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';

/** Where the operations listener listens (the `metricsHost` and `metricsPort` settings). */
export interface OperationsHttpOptions {
  readonly host: string;
  /** 0: any free port (the log line names it). */
  readonly port: number;
}

export const OPERATIONS_HTTP_OPTIONS = Symbol.for('once:operations-http-options');

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The reference service's operations listener: `GET /metrics` (Prometheus
 * text), `GET /health/live` and `GET /health/ready` (terminus's JSON, 200 or
 * 503). Served by node's `http` module calling terminus's
 * `HealthCheckService`: the service is a NestJS microservice with no HTTP
 * platform, and three read-only routes do not justify adding Express.
 *
 * It listens at module init, before the journal replays (which starts at
 * application bootstrap), so readiness answers 503 throughout the replay;
 * it closes at application shutdown.
 */
@Injectable()
export class OperationsHttpServer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('OnceOperations');
  private server: Server | undefined;

  constructor(
    @Inject(OPERATIONS_HTTP_OPTIONS) private readonly options: OperationsHttpOptions,
    private readonly health: HealthCheckService,
    private readonly once: OnceHealthIndicator,
    private readonly metrics: OnceMetrics,
  ) {}

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
    const path = (request.url ?? '/').split('?')[0];
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
      default:
        return send(response, 404, JSON_TYPE, '{"status":"error","message":"not found"}');
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

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  response.end(body);
}
