import { type AddressInfo } from 'node:net';
import { type Server, type TLSSocket, createServer } from 'node:tls';
import { Command, encodeReplyTo, FrameDecoder, Operation, Status } from '@once/protocol';

/**
 * A stand-in for a cluster follower that serves TLS with a certificate the
 * test made: PING names its leader (`role: follower`), every other request is
 * answered NOT_READY with the leader in `error.leader`, as docs/PROTOCOL-NOTES.md
 * describes. The TLS twin of LeaderReportingNode, for showing which hints a
 * client follows over a verified TLS connection, and which not when the
 * certificate was not verified.
 */
export class TlsFollower {
  /** The operation code of every request received, in order. */
  readonly received: number[] = [];
  private readonly sockets = new Set<TLSSocket>();

  private constructor(
    private readonly server: Server,
    private readonly leader: string,
  ) {
    server.on('secureConnection', (socket) => this.accept(socket));
  }

  /** Listens on a free port of 127.0.0.1 with `key`/`cert`, naming `leader` (`host:port`). */
  static async start(key: Buffer, cert: Buffer, leader: string): Promise<TlsFollower> {
    const follower = new TlsFollower(createServer({ key, cert }), leader);
    await new Promise<void>((resolve) => follower.server.listen(0, '127.0.0.1', resolve));
    return follower;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: TLSSocket): void {
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
        const frame = result.frame;
        this.received.push(frame.header.operation);
        if (frame.header.operation === (Operation.Ping as number)) {
          const body = {
            version: 1,
            commit: 0,
            ready: false,
            role: 'follower',
            leader: this.leader,
          };
          socket.write(
            encodeReplyTo(
              frame,
              { command: Command.Reply, status: Status.Ok },
              JSON.stringify(body),
            ),
          );
          continue;
        }
        const error = {
          code: 'NOT_READY',
          message: `this node is a follower; the leader is at ${this.leader}`,
          leader: this.leader,
        };
        socket.write(
          encodeReplyTo(
            frame,
            { command: Command.Reply, status: Status.NotReady },
            JSON.stringify({ ok: false, error }),
          ),
        );
      }
    });
  }
}
