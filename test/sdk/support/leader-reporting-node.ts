import { Command, encodeReplyTo, errorBody, type Frame, Operation, Status } from '@once/protocol';
import { FrameServer } from '@once/testing';

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
  private server!: FrameServer;

  private constructor(private readonly leader: string | null) {}

  /** Listens on a free port of 127.0.0.1; `leader` is the `host:port` its PING reports. */
  static async start(leader: string | null): Promise<LeaderReportingNode> {
    const node = new LeaderReportingNode(leader);
    node.server = await FrameServer.start((frame) => {
      node.received.push(frame.header.operation);
      return node.answer(frame);
    });
    return node;
  }

  get port(): number {
    return this.server.port;
  }

  close(): Promise<void> {
    return this.server.close();
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
