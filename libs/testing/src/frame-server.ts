import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { type Frame } from '@once/protocol';
import { FrameDecoder } from '@once/protocol/internal';

/**
 * A TCP server on 127.0.0.1 that speaks PROTOCOL.md's framing and nothing
 * more: each whole frame a connection sends is handed to `answer`, and what
 * it returns is written back; a framing error closes the connection. The
 * base of stand-in nodes a test scripts (replies a real node does not send
 * yet, a follower that cannot serve). Given a key and certificate, it serves
 * TLS instead, with the same framing.
 */
export class FrameServer {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly answer: (frame: Frame) => Buffer,
    connectionEvent: 'connection' | 'secureConnection',
  ) {
    server.on(connectionEvent, (socket: Socket) => this.accept(socket));
  }

  /** Listens on a free port of 127.0.0.1: TLS with `tls`'s key and certificate, if given, else plain TCP. */
  static async start(
    answer: (frame: Frame) => Buffer,
    tls?: { readonly key: Buffer; readonly cert: Buffer },
  ): Promise<FrameServer> {
    const frameServer = tls
      ? new FrameServer(createTlsServer(tls), answer, 'secureConnection')
      : new FrameServer(createServer(), answer, 'connection');
    await new Promise<void>((resolve) => frameServer.server.listen(0, '127.0.0.1', resolve));
    return frameServer;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Destroys every connection and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      for (let result = decoder.next(); result; result = decoder.next()) {
        if (result.kind === 'error') {
          socket.destroy();
          return;
        }
        socket.write(this.answer(result.frame));
      }
    });
  }
}
