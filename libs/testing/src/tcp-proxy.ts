import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxyOptions {
  /** Where connections are forwarded to. */
  readonly targetPort: number;
  readonly targetHost?: string;
  /** Port to listen on; default 0 (any free port, see `port`). */
  readonly port?: number;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  /** Bytes the client sent before the upstream connection was open. */
  readonly early: Buffer[];
}

/**
 * A TCP proxy between a client and a service that a test can misbehave on
 * command: `cut()` drops every connection (both ends see a reset), `stall()`
 * stops forwarding in both directions (bytes wait in buffers, new connections
 * wait), `resume()` lets everything flow again.
 */
export class TcpProxy {
  private readonly pairs = new Set<Pair>();
  private stalled = false;

  private constructor(
    private readonly server: Server,
    private readonly options: TcpProxyOptions,
  ) {}

  static async start(options: TcpProxyOptions): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, options);
    server.on('connection', (socket) => proxy.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  get port(): number {
    const address = this.server.address();
    return address && typeof address === 'object' ? address.port : 0;
  }

  get connectionCount(): number {
    return this.pairs.size;
  }

  /** Drops every open connection at once, client and service side. */
  cut(): void {
    for (const pair of [...this.pairs]) this.drop(pair);
  }

  /** Stops forwarding bytes (both ways) and holds new connections until `resume()`. */
  stall(): void {
    this.stalled = true;
    for (const pair of this.pairs) {
      pair.client.pause();
      pair.upstream?.pause();
    }
  }

  resume(): void {
    this.stalled = false;
    for (const pair of this.pairs) {
      if (!pair.upstream) this.openUpstream(pair);
      pair.client.resume();
      pair.upstream?.resume();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const pair: Pair = { client, upstream: undefined, early: [] };
    this.pairs.add(pair);
    client.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      if (pair.upstream && !pair.upstream.connecting) pair.upstream.write(chunk);
      else pair.early.push(chunk);
    });
    client.on('error', () => this.drop(pair));
    client.on('close', () => this.drop(pair));
    if (this.stalled) client.pause();
    else this.openUpstream(pair);
  }

  private openUpstream(pair: Pair): void {
    const upstream = connect({
      port: this.options.targetPort,
      host: this.options.targetHost ?? '127.0.0.1',
    });
    pair.upstream = upstream;
    upstream.setNoDelay(true);
    upstream.on('connect', () => {
      for (const chunk of pair.early.splice(0)) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => pair.client.write(chunk));
    upstream.on('error', () => this.drop(pair));
    upstream.on('close', () => this.drop(pair));
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  }
}
