import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { type Frame, FrameDecoder } from '@once/protocol';

/**
 * A TCP server on 127.0.0.1 that speaks PROTOCOL.md's framing and nothing
 * more: each whole frame a connection sends is handed to `answer`, and what
 * it returns is written back; a framing error closes the connection. The
 * base of stand-in nodes a test scripts (replies a real node does not send
 * yet, a follower that cannot serve).
 */
export class FrameServer {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly answer: (frame: Frame) => Buffer,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens on a free port of 127.0.0.1. */
  static async start(answer: (frame: Frame) => Buffer): Promise<FrameServer> {
    const frameServer = new FrameServer(createServer(), answer);
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
