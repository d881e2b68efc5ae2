import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Socket } from 'node:net';

/**
 * Bounds the connections the operations listener holds, so that its sockets
 * never take the file descriptors the client port needs (the process has
 * one limit for both): idle sockets opened by the ten thousand took the
 * process to that limit, after which client connections were accepted and
 * dropped.
 *
 * At the cap, a new connection does not simply bounce (that would let idle
 * sockets lock out the health probe): the oldest connection that is not
 * serving a request (one that sent nothing, or a keep-alive between
 * requests) is closed to make room. Only when every connection is serving a
 * request (long-polls, themselves capped) is the new one closed. Sockets that
 * stay idle are closed anyway by the server's header timeout.
 */
export class ConnectionCap {
  /** Open connections, oldest first (a Map keeps insertion order), with their requests in progress. */
  private readonly open = new Map<Socket, { requests: number }>();

  constructor(private readonly max: number) {}

  /** How many connections are open. */
  get size(): number {
    return this.open.size;
  }

  /** The server's `connection` event: the raw TCP socket, before any TLS. */
  admit(socket: Socket): void {
    if (this.open.size >= this.max) {
      const idle = this.oldestIdle();
      if (idle === undefined) {
        socket.destroy();
        return;
      }
      this.open.delete(idle);
      idle.destroy();
    }
    this.open.set(socket, { requests: 0 });
    socket.once('close', () => this.open.delete(socket));
  }

  /** The server's `request` event: its connection is busy until the response closes. */
  track(request: IncomingMessage, response: ServerResponse): void {
    const entry = this.open.get(rawSocketOf(request.socket));
    if (entry === undefined) return;
    entry.requests++;
    response.once('close', () => entry.requests--);
  }

  private oldestIdle(): Socket | undefined {
    for (const [socket, { requests }] of this.open) if (requests === 0) return socket;
    return undefined;
  }
}

/** The TCP socket under a request's socket: a TLS socket's parent, or the socket itself. */
function rawSocketOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}
