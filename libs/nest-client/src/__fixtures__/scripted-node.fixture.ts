import { Command, type Frame, Operation, Status } from '@once/protocol';
import { encodeReplyTo, parseRequest } from '@once/protocol/internal';
import { FrameServer } from '@once/testing';

/** What the node answers to a COMMAND or QUERY: the reply body (an outcome). */
export type Script = (operation: 'command' | 'query', pattern: string, data: unknown) => string;

/**
 * A node that speaks PROTOCOL.md over real TCP with replies a test writes
 * itself, for reply bodies a real node does not produce (yet). It binds every
 * REGISTER as epoch 1 and answers each COMMAND and QUERY with `script`'s body;
 * nothing else of a node is there (no journal, no numbering checks).
 */
export class ScriptedNode {
  /** Every COMMAND and QUERY received, in order. */
  readonly calls: Array<{ operation: 'command' | 'query'; pattern: string }> = [];
  private server!: FrameServer;

  private constructor(private readonly script: Script) {}

  static async start(script: Script): Promise<ScriptedNode> {
    const node = new ScriptedNode(script);
    node.server = await FrameServer.start((frame) => node.answer(frame));
    return node;
  }

  get port(): number {
    return this.server.port;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private answer(frame: Frame): Buffer {
    const parsed = parseRequest(frame);
    if (!parsed.ok) throw new Error(`the scripted node got a bad request: ${parsed.message}`);
    const request = parsed.request;
    const reply = { command: Command.Reply, status: Status.Ok } as const;
    switch (request.operation) {
      case Operation.Register:
        return encodeReplyTo(
          frame,
          { ...reply, session: 1, op: 1, commit: 1 },
          JSON.stringify({ userId: 1, epoch: 1, watermark: 0, resumeToken: '0'.repeat(31) + '1' }),
        );
      case Operation.Command:
      case Operation.Query: {
        const operation = request.operation === Operation.Command ? 'command' : 'query';
        this.calls.push({ operation, pattern: request.pattern });
        const number = frame.header.request;
        return encodeReplyTo(
          frame,
          { ...reply, op: number, commit: number, watermark: number },
          this.script(operation, request.pattern, request.data),
        );
      }
      case Operation.Ping:
        return encodeReplyTo(frame, reply, JSON.stringify({ version: 1, commit: 0, ready: true }));
      default:
        throw new Error(`the scripted node does not answer operation ${request.operation}`);
    }
  }
}
