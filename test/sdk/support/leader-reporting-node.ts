import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import {
  Command,
  encodeReplyTo,
  errorBody,
  type Frame,
  FrameDecoder,
  Operation,
  Status,
} from '@once/protocol';

/**
 * A stand-in for a follower of a once cluster that cannot serve: it answers
 * PING with the cluster fields (`role`, `leader`: the address its leader
 * advertises) and every other request NOT_READY, echoing the request as
 * PROTOCOL.md asks. The reference service runs as a single node and reports
 * no `leader`, so this is what lets a test show a client learning a node
 * from a PING reply over real TCP. It holds no session and no journal.
 */
export class LeaderReportingNode {
  /** The operation code of every request received, in order. */
  readonly received: number[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly leader: string | null,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens on a free port of 127.0.0.1; `leader` is the `host:port` its PING reports. */
  static async start(leader: string | null): Promise<LeaderReportingNode> {
    const node = new LeaderReportingNode(createServer(), leader);
    await new Promise<void>((resolve) => node.server.listen(0, '127.0.0.1', resolve));
    return node;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

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
        this.received.push(result.frame.header.operation);
        socket.write(this.answer(result.frame));
      }
    });
  }

  private answer(frame: Frame): Buffer {
    if (frame.header.operation === (Operation.Ping as number)) {
      const body = { version: 1, commit: 0, ready: false, role: 'follower', leader: this.leader };
      return encodeReplyTo(
        frame,
        { command: Command.Reply, status: Status.Ok },
        JSON.stringify(body),
      );
    }
    return encodeReplyTo(
      frame,
      { command: Command.Reply, status: Status.NotReady },
      errorBody(
        'NOT_READY',
        'this node is a follower and cannot serve; retry the same frame later',
      ),
    );
  }
}
