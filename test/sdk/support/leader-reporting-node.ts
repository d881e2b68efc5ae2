import { Command, type Frame, Operation, Status } from '@once/protocol';
import { encodeReplyTo } from '@once/protocol/internal';
import { FrameServer } from '@once/testing';
import { followerNotReady } from '../../../libs/sdk/src/__fixtures__/hinting-node.fixture';

/**
 * A stand-in for a follower of a once cluster that cannot serve: it answers
 * PING with the cluster fields (`role`, `leader`: the address its leader
 * advertises) and every other request NOT_READY, echoing the request as
 * PROTOCOL.md asks, with the follower's error body: the leader's address in
 * `error.leader` (left out while `leader` is null). The reference service
 * runs as a single node and reports no `leader`, so this is what lets a test
 * show a client learning a node, or following a NOT_READY's hint, over real
 * TCP. It holds no session and no journal.
 */
export class LeaderReportingNode {
  /** The operation code of every request received, in order. */
  readonly received: number[] = [];
  /** The request number of every COMMAND received, in order. */
  readonly commands: number[] = [];
  private server!: FrameServer;

  /** The `host:port` this node names as its leader (PING and NOT_READY); null: none known. */
  private constructor(public leader: string | null) {}

  /**
   * Listens on a free port of 127.0.0.1; `leader` is the `host:port` it names
   * as its leader. Given `tls` (a key and a certificate the test made), it
   * serves TLS: for showing which hints a client follows over a verified TLS
   * connection, and which not when the certificate was not verified.
   */
  static async start(
    leader: string | null,
    tls?: { readonly key: Buffer; readonly cert: Buffer },
  ): Promise<LeaderReportingNode> {
    const node = new LeaderReportingNode(leader);
    node.server = await FrameServer.start((frame) => {
      node.received.push(frame.header.operation);
      if (frame.header.operation === (Operation.Command as number)) {
        node.commands.push(frame.header.request);
      }
      return node.answer(frame);
    }, tls);
    return node;
  }

  get port(): number {
    return this.server.port;
  }

  /** `127.0.0.1:port`, as a client dials it. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
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
    return followerNotReady(frame, this.leader);
  }
}
