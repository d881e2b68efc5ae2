import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/** Which way bytes travel through the proxy. */
export type Direction = 'toServer' | 'toClient';

/** `forward`: bytes pass at once. `hold`: bytes are kept until the direction forwards again. */
export type FlowMode = 'forward' | 'hold';

class ProxiedConnection {
  readonly held: Record<Direction, Buffer[]> = { toServer: [], toClient: [] };
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

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.held.toServer = [];
    this.held.toClient = [];
    this.client.destroy();
    this.upstream.destroy();
    this.proxy.forget(this);
  }

  private receive(direction: Direction, chunk: Buffer): void {
    if (this.closed) return;
    this.held[direction].push(chunk);
    this.flow(direction);
  }
}

/**
 * A TCP proxy between a client under test and a node, for e2e tests that must
 * put a connection into an exact state: hold the bytes of one direction (a
 * request sent but not received, a reply committed but not delivered), refuse
 * new connections for a while, or cut every connection at once.
 *
 * It never changes, reorders or invents bytes: what it forwards is what was sent.
 */
export class TcpProxy {
  /** While false, new connections are accepted and closed at once (the client sees a reset link). */
  accepting = true;
  private readonly modes: Record<Direction, FlowMode> = {
    toServer: 'forward',
    toClient: 'forward',
  };
  private readonly connections = new Set<ProxiedConnection>();

  private constructor(
    private readonly server: Server,
    private target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve(new TcpProxy(server, { host: targetHost, port: targetPort }));
      });
    });
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

  /** Sends new connections to another node from now on (open ones keep theirs). */
  retarget(port: number, host = '127.0.0.1'): void {
    this.target = { host, port };
  }

  /** Sets how `direction` flows; switching to `forward` releases what was held. */
  setMode(direction: Direction, mode: FlowMode): void {
    this.modes[direction] = mode;
    for (const connection of this.connections) connection.flow(direction);
  }

  /** Bytes held in `direction` over every open connection. */
  heldBytes(direction: Direction): number {
    let total = 0;
    for (const connection of this.connections) total += connection.heldBytes(direction);
    return total;
  }

  /** Discards every held byte (they were "lost in the network"). */
  dropHeld(): void {
    for (const connection of this.connections) {
      connection.held.toServer = [];
      connection.held.toClient = [];
    }
  }

  /** Cuts every open connection, both sides. */
  resetConnections(): void {
    for (const connection of [...this.connections]) connection.destroy();
  }

  async close(): Promise<void> {
    this.resetConnections();
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
