import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { Command, type Frame, Operation, Status } from '@once/protocol';
import { encodeReplyTo, parseRequest } from '@once/protocol/internal';
import { FrameServer } from '@once/testing';

/** How a {@link HintingNode} answers: it serves, or it is a follower naming `leader` (null: none). */
export type HintingMode =
  { readonly kind: 'serving' } | { kind: 'follower'; leader: string | null };

/**
 * A node over real TCP that either serves (binds every REGISTER as epoch 1,
 * answers every COMMAND and QUERY OK) or is a cluster follower that answers
 * PING with `role`/`leader` and everything else NOT_READY naming its leader,
 * as docs/PROTOCOL-NOTES.md describes. The mode can change while clients are
 * connected, which is how a test turns a leader into a follower that names a
 * forged address. No journal, no numbering checks.
 */
export class HintingNode {
  /** The operation code of every request received, in order. */
  readonly received: number[] = [];
  private server!: FrameServer;

  private constructor(public mode: HintingMode) {}

  static async start(mode: HintingMode): Promise<HintingNode> {
    const node = new HintingNode(mode);
    node.server = await FrameServer.start((frame) => node.answer(frame));
    return node;
  }

  get port(): number {
    return this.server.port;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private answer(frame: Frame): Buffer {
    const parsed = parseRequest(frame);
    if (!parsed.ok) throw new Error(`the hinting node got a bad request: ${parsed.message}`);
    const operation = parsed.request.operation;
    this.received.push(operation);
    const mode = this.mode;
    const ok = { command: Command.Reply, status: Status.Ok } as const;
    if (operation === Operation.Ping) {
      const follower = mode.kind === 'follower';
      const body = {
        version: 1,
        commit: 0,
        ready: !follower,
        node: 'scripted',
        role: follower ? (mode.leader === null ? 'none' : 'follower') : 'leader',
        leader: follower ? mode.leader : this.address,
      };
      return encodeReplyTo(frame, ok, JSON.stringify(body));
    }
    if (mode.kind === 'follower') return followerNotReady(frame, mode.leader);
    if (operation === Operation.Register) {
      return encodeReplyTo(
        frame,
        { ...ok, session: 1, op: 1, commit: 1 },
        JSON.stringify({ userId: 1, epoch: 1, watermark: 0, resumeToken: '0'.repeat(31) + '1' }),
      );
    }
    const number = frame.header.request;
    return encodeReplyTo(
      frame,
      { ...ok, op: number, commit: number, watermark: number },
      JSON.stringify({ ok: true, result: { served: true } }),
    );
  }
}

/**
 * A follower's NOT_READY reply to `frame`, as docs/PROTOCOL-NOTES.md describes
 * it: the leader's `host:port` in `error.leader`, left out when `leader` is
 * null (no leader known).
 */
export function followerNotReady(frame: Frame, leader: string | null): Buffer {
  const error =
    leader === null
      ? { code: 'NOT_READY', message: 'this node has no leader; retry later' }
      : {
          code: 'NOT_READY',
          message: `this node is a follower; the leader is at ${leader}`,
          leader,
        };
  return encodeReplyTo(
    frame,
    { command: Command.Reply, status: Status.NotReady },
    JSON.stringify({ ok: false, error }),
  );
}

/**
 * A TCP listener the test owns, standing for the address a forged hint
 * names: it counts the connections it is offered and closes them.
 */
export class WatchedListener {
  connections = 0;

  private constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.connections += 1;
      socket.destroy();
    });
  }

  static async start(): Promise<WatchedListener> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new WatchedListener(server);
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
