import { Logger } from '@nestjs/common';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { type TLSSocket, createServer as createTlsServer } from 'node:tls';
import { LogEvent } from '@once/engine';
import { type OnceRuntime } from '@once/framework';
import { type OnceRuntimeConsumer, ONCE_TRANSPORT } from '@once/framework/internal';
import { Gateway } from './gateway';
import {
  type GatewayOptions,
  type ResolvedGatewayOptions,
  resolveGatewayOptions,
} from './gateway-options';

/** Raised by `listen` when the application does not import `OnceModule`. */
export class OnceRuntimeMissingError extends Error {
  readonly code = 'ONCE_RUNTIME_MISSING';
  constructor() {
    super('OnceServer needs OnceModule.forRoot(...) imported in the application it serves');
  }
}

/**
 * The once gateway as a NestJS custom transport strategy:
 *
 * ```ts
 * const app = await NestFactory.createMicroservice(AppModule, { strategy: new OnceServer({ port: 7700 }) });
 * await app.listen();
 * // or, beside HTTP:
 * app.connectMicroservice({ strategy: new OnceServer({ port: 7700 }) });
 * ```
 *
 * The application's `OnceModule` finds this strategy among its RPC targets
 * and attaches its runtime as soon as both exist. The listener may open
 * before the data directory is open or while the journal still replays:
 * PING answers `ready: false` and every other request NOT_READY until the
 * node is ready. Its log says `bound host:port` when the port is open and
 * `listening on host:port` once the node is ready and serves.
 *
 * It serves `@Command` and `@Query` handlers only: `listen` fails with
 * NOT_A_ONCE_HANDLER when NestJS bound another handler to it (an
 * `@EventPattern` or `@MessagePattern` declared for it, or declared without a
 * transport in an application with no other microservice transport), naming
 * the handler and what to write instead.
 */
export class OnceServer extends Server implements CustomTransportStrategy, OnceRuntimeConsumer {
  override readonly transportId = ONCE_TRANSPORT;
  readonly options: ResolvedGatewayOptions;
  protected override readonly logger = new Logger('OnceServer');
  private runtime: OnceRuntime | undefined;
  private gateway: Gateway | undefined;
  private netServer: NetServer | undefined;
  private replyLatencyListeners: ReadonlyArray<(latencyMs: number) => void> = [];

  constructor(options: GatewayOptions = {}) {
    super();
    this.options = resolveGatewayOptions(options);
  }

  /**
   * A pattern arrives as the exact string a handler registered under, so a
   * Map lookup finds it; NestJS's own lookup first tries to JSON-parse every
   * pattern (and throws and catches for a plain name), which costs more than
   * the rest of the admission.
   */
  override getHandlerByPattern(pattern: string): MessageHandler | null {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  attachOnceRuntime(runtime: OnceRuntime): void {
    this.runtime = runtime;
  }

  /** The bound address once listening (the real port when `port` was 0). */
  address(): AddressInfo | undefined {
    const address = this.netServer?.address();
    return address && typeof address === 'object' ? address : undefined;
  }

  /** Open client connections; 0 before `listen`. Cheap: for metrics read at scrape time. */
  get connectionCount(): number {
    return this.gateway?.connectionCount ?? 0;
  }

  /** COMMAND and LOGOUT requests admitted and not applied yet; 0 before `listen`. */
  get requestsInFlight(): number {
    return this.gateway?.requestsInFlight ?? 0;
  }

  /**
   * Calls `listener` with each applied COMMAND's or LOGOUT's latency, in ms,
   * from its admission (the gateway took it in, before its NestJS pipeline)
   * to its reply being written. Timing starts only once someone listens.
   * Returns the unsubscribe function.
   */
  onReplyLatency(listener: (latencyMs: number) => void): () => void {
    this.replyLatencyListeners = [...this.replyLatencyListeners, listener];
    this.wireReplyLatency();
    return () => {
      this.replyLatencyListeners = this.replyLatencyListeners.filter((other) => other !== listener);
      this.wireReplyLatency();
    };
  }

  private wireReplyLatency(): void {
    if (!this.gateway) return;
    const listeners = this.replyLatencyListeners;
    this.gateway.replyLatencyObserver =
      listeners.length === 0
        ? undefined
        : (latencyMs) => {
            for (const listener of listeners) listener(latencyMs);
          };
  }

  listen(callback: (error?: unknown) => void): void {
    if (!this.runtime) {
      callback(new OnceRuntimeMissingError());
      return;
    }
    // A @MessagePattern or @EventPattern NestJS bound here would never run.
    const foreign = this.runtime.foreignHandlerError();
    if (foreign) {
      callback(foreign);
      return;
    }
    const runtime = this.runtime;
    const gateway = new Gateway(runtime, this.options, this);
    const tls = this.options.tlsOptions;
    const server: NetServer = tls
      ? createTlsServer(tls, (socket) => gateway.accept(socket))
      : createServer((socket) => gateway.accept(socket));
    if (tls) {
      // A client certificate that fails verification ends the handshake as a
      // bare "socket hang up"; the socket's authorizationError names the cause
      // (an OpenSSL code such as DEPTH_ZERO_SELF_SIGNED_CERT on the server side).
      server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
        const cause: unknown = socket.authorizationError;
        const reason =
          cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : undefined;
        this.logger.warn(
          `TLS handshake failed: ${reason ? `client certificate refused (${reason})` : error.message}`,
        );
      });
    }
    server.maxConnections = this.options.connectionsMax;
    this.gateway = gateway;
    this.wireReplyLatency();
    this.netServer = server;
    const onStartupError = (error: Error) => callback(error);
    server.once('error', onStartupError);
    server.listen(this.options.port, this.options.host, () => {
      server.off('error', onStartupError);
      server.on('error', (error) => {
        this.logger.error(`listener: ${error.message}`);
      });
      const { address, port } = this.address()!;
      const where = `${address}:${port}${tls ? ' (TLS)' : ''}`;
      const fields = { host: address, port, tls: tls !== undefined };
      // Bound now, but serving only once replay is done: `listening` says the latter.
      this.logger.log(
        new LogEvent(
          'bound',
          `bound ${where}: requests get NOT_READY until the node is ready`,
          fields,
        ),
      );
      runtime.whenReady().then(
        () => {
          if (this.netServer === server) {
            this.logger.log(new LogEvent('listening', `listening on ${where}`, fields));
          }
        },
        () => undefined,
      );
      callback();
    });
  }

  /** Graceful: stop accepting, let admitted requests commit and answer, then close every connection. */
  async close(): Promise<void> {
    const server = this.netServer;
    if (!server) return;
    this.netServer = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await this.gateway?.stop();
    await closed;
  }

  /** Listens to the underlying `net.Server` ('error', 'connection', …). */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- the signature NestJS's Server declares
  on<EventKey extends string = string, EventCallback extends Function = Function>(
    event: EventKey,
    callback: EventCallback,
  ): void {
    this.netServer?.on(event, callback as unknown as (...args: unknown[]) => void);
  }

  unwrap<T>(): T {
    if (!this.netServer) throw new Error('OnceServer is not listening');
    return this.netServer as T;
  }
}
