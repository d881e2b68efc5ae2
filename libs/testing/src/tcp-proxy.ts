import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxyOptions {
  /** Where connections are forwarded to. */
  readonly targetPort: number;
  readonly targetHost?: string;
  /** Port to listen on; default 0 (any free port, see `port`). */
  readonly port?: number;
}

/** Which way bytes travel through the proxy. */
export type Direction = 'toServer' | 'toClient';

/** `forward`: bytes pass at once. `hold`: bytes wait in the proxy until the direction forwards again. */
export type FlowMode = 'forward' | 'hold';

class ProxiedConnection {
  private readonly held: Record<Direction, Buffer[]> = { toServer: [], toClient: [] };
  private upstreamReady = false;
  closed = false;

  constructor(
    private readonly proxy: TcpProxy,
    readonly client: Socket,
    readonly upstream: Socket,
  ) {
    client.on('data', (chunk: Buffer) => this.receive('toServer', chunk));
    upstream.on('data', (chunk: Buffer) => this.receive('toClient', chunk));
    upstream.once('connect', () => {
      this.upstreamReady = true;
      this.flow('toServer');
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => this.destroy());
      socket.on('close', () => this.destroy());
    }
  }

  heldBytes(direction: Direction): number {
    return this.held[direction].reduce((sum, chunk) => sum + chunk.length, 0);
  }

  flow(direction: Direction): void {
    if (this.closed || this.proxy.mode(direction) !== 'forward') return;
    if (direction === 'toServer' && !this.upstreamReady) return;
    const target = direction === 'toServer' ? this.upstream : this.client;
    for (const chunk of this.held[direction].splice(0)) target.write(chunk);
  }

  /**
   * Closes both ends; with `reset`, with an RST (the peers see a broken link,
   * not a clean close). A side already ending (its peer closed first, so a
   * FIN is on its way) is destroyed plainly: Node refuses the reset of a
   * socket whose shutdown is pending, yet marks its handle closing, and the
   * handle is never closed (its descriptor leaks, and the process's exit
   * cleanup waits for it forever).
   */
  destroy(reset = false): void {
    if (this.closed) return;
    this.closed = true;
    this.dropHeld();
    for (const socket of [this.client, this.upstream]) {
      if (reset && !socket.writableEnded) socket.resetAndDestroy();
      else socket.destroy();
    }
    this.proxy.forget(this);
  }

  /** Discards what waits in both directions. */
  dropHeld(): void {
    this.held.toServer = [];
    this.held.toClient = [];
  }

  private receive(direction: Direction, chunk: Buffer): void {
    if (this.closed) return;
    this.held[direction].push(chunk);
    this.flow(direction);
  }
}

/**
 * A TCP proxy between a client and a service that a test can misbehave on
 * command, to put connections into exact states:
 * - `cut()` drops every connection at once (both ends see a reset);
 * - `stall()` / `resume()` stop and restart forwarding in both directions;
 * - `setMode(direction, 'hold')` holds one direction only (a request sent but
 *   not received, a reply committed but not delivered), `heldBytes` says how
 *   much waits, `dropHeld` loses it;
 * - `accepting = false` refuses new connections, `retarget` sends new ones
 *   to another service.
 *
 * It never changes, reorders or invents bytes: what it forwards is what was sent.
 */
export class TcpProxy {
  /** While false, new connections are accepted and closed at once. */
  accepting = true;
  private readonly modes: Record<Direction, FlowMode> = {
    toServer: 'forward',
    toClient: 'forward',
  };
  private readonly connections = new Set<ProxiedConnection>();
  private target: { host: string; port: number };

  private constructor(
    private readonly server: Server,
    options: TcpProxyOptions,
  ) {
    this.target = { host: options.targetHost ?? '127.0.0.1', port: options.targetPort };
    server.on('connection', (client) => this.accept(client));
  }

  static async start(options: TcpProxyOptions): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  mode(direction: Direction): FlowMode {
    return this.modes[direction];
  }

  /** Sets how `direction` flows; switching to `forward` releases what was held. */
  setMode(direction: Direction, mode: FlowMode): void {
    this.modes[direction] = mode;
    for (const connection of this.connections) connection.flow(direction);
  }

  /** Holds both directions. */
  stall(): void {
    this.setMode('toServer', 'hold');
    this.setMode('toClient', 'hold');
  }

  /** Forwards both directions again, releasing what was held. */
  resume(): void {
    this.setMode('toServer', 'forward');
    this.setMode('toClient', 'forward');
  }

  /** Drops every open connection at once, client and service side. */
  cut(): void {
    for (const connection of [...this.connections]) connection.destroy(true);
  }

  /** Sends new connections to another service from now on (open ones keep theirs). */
  retarget(port: number, host = '127.0.0.1'): void {
    this.target = { host, port };
  }

  /** Bytes held in `direction` over every open connection. */
  heldBytes(direction: Direction): number {
    let total = 0;
    for (const connection of this.connections) total += connection.heldBytes(direction);
    return total;
  }

  /** Discards every held byte (they were lost in the network). */
  dropHeld(): void {
    for (const connection of this.connections) connection.dropHeld();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** @internal */
  forget(connection: ProxiedConnection): void {
    this.connections.delete(connection);
  }

  private accept(client: Socket): void {
    if (!this.accepting) {
      client.on('error', () => undefined);
      client.destroy();
      return;
    }
    client.setNoDelay(true);
    const upstream = connect(this.target);
    upstream.setNoDelay(true);
    this.connections.add(new ProxiedConnection(this, client, upstream));
  }
}
