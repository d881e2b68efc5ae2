import { connect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import {
  type ClientId,
  Command,
  type Frame,
  Operation,
  parseReplyBody,
  type ReplyOutcome,
} from '@once/protocol';
import { FrameDecoder, type FrameFields, encodeFrame } from '@once/protocol/internal';

export class RawClientTimeoutError extends Error {
  readonly code = 'RAW_CLIENT_TIMEOUT';
}

export class RawClientClosedError extends Error {
  readonly code = 'RAW_CLIENT_CLOSED';
}

/** Fields of a request frame; `command` is REQUEST unless given. */
export type RequestFields = Omit<FrameFields, 'command'> & { command?: Command };

/**
 * A protocol-level client for tests: sends exactly the bytes it is told to and
 * hands back every frame the node sends, in order. No retries, no session
 * logic: that is what it is for (asserting the node's answers byte for byte).
 */
export class RawClient {
  private readonly decoder = new FrameDecoder({ maxFrameBytes: 64 * 1024 * 1024 });
  private readonly frames: Frame[] = [];
  private readonly waiters: Array<{
    resolve: (frame: Frame) => void;
    reject: (error: Error) => void;
  }> = [];
  private closedValue = false;
  private readonly closedPromise: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.decoder.push(chunk);
      for (let result = this.decoder.next(); result; result = this.decoder.next()) {
        if (result.kind === 'error') {
          this.fail(new Error(`the node sent a bad frame: ${result.message}`));
          return;
        }
        const waiter = this.waiters.shift();
        if (waiter) waiter.resolve(result.frame);
        else this.frames.push(result.frame);
      }
    });
    this.closedPromise = new Promise((resolve) => {
      socket.on('close', () => {
        this.closedValue = true;
        this.fail(new RawClientClosedError('the connection closed'));
        resolve();
      });
    });
    socket.on('error', () => undefined);
  }

  /** Connects over TCP, or over TLS when `tls` is given (options for `tls.connect`). */
  static connect(port: number, host = '127.0.0.1', tls?: ConnectionOptions): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = tls ? connectTls({ ...tls, port, host }) : connect({ port, host });
      socket.once(tls ? 'secureConnect' : 'connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedValue;
  }

  /** Resolves when the node closed the connection. */
  whenClosed(): Promise<void> {
    return this.closedPromise;
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Encodes and sends a request frame; returns the bytes sent. */
  send(fields: RequestFields, body?: Uint8Array | string): Buffer {
    const frame = encodeFrame({ command: Command.Request, ...fields }, body);
    this.write(frame);
    return frame;
  }

  /** The next frame from the node. */
  next(timeoutMs = 5000): Promise<Frame> {
    const queued = this.frames.shift();
    if (queued) return Promise.resolve(queued);
    if (this.closedValue)
      return Promise.reject(new RawClientClosedError('the connection is closed'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(new RawClientTimeoutError(`no frame within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        resolve: (frame: Frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Sends and waits for the next frame. */
  async request(
    fields: RequestFields,
    body?: Uint8Array | string,
    timeoutMs?: number,
  ): Promise<Frame> {
    this.send(fields, body);
    return this.next(timeoutMs);
  }

  /** Asserts that nothing arrives for `ms`. */
  async expectSilence(ms = 200): Promise<void> {
    const frame = await this.next(ms).catch((error: unknown) => {
      if (error instanceof RawClientTimeoutError) return undefined;
      throw error;
    });
    if (frame)
      throw new Error(
        `expected no frame, got command ${frame.header.command} status ${frame.header.status}`,
      );
  }

  close(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private fail(error: Error): void {
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  // ------------------------------------------------------------ conveniences

  register(client: ClientId, username: string, password: string): Promise<Frame> {
    return this.request(
      { operation: Operation.Register, client },
      JSON.stringify({ username, password }),
    );
  }

  command(
    client: ClientId,
    session: number,
    request: number,
    pattern: string,
    data: unknown,
    resumeToken?: Uint8Array,
  ): Promise<Frame> {
    return this.request(
      { operation: Operation.Command, client, session, request, resumeToken },
      JSON.stringify({ pattern, data }),
    );
  }

  query(client: ClientId, session: number, pattern: string, data: unknown): Promise<Frame> {
    return this.request(
      { operation: Operation.Query, client, session },
      JSON.stringify({ pattern, data }),
    );
  }

  ping(): Promise<Frame> {
    return this.request({ operation: Operation.Ping });
  }
}

/** The JSON body of a reply. */
export function bodyJson(frame: Frame): unknown {
  return frame.body.length === 0 ? undefined : JSON.parse(frame.body.toString('utf8'));
}

/** The `{ok, …}` outcome of a COMMAND or QUERY reply. */
export function outcomeOf(frame: Frame): ReplyOutcome {
  const outcome = parseReplyBody(frame.body);
  if (!outcome) throw new Error(`reply body is not an outcome: ${frame.body.toString('utf8')}`);
  return outcome;
}

/** What a REGISTER reply says. */
export interface Registration {
  readonly userId: number;
  readonly epoch: number;
  readonly watermark: number;
  readonly resumeToken: Buffer;
}

export function registrationOf(frame: Frame): Registration {
  const body = bodyJson(frame) as {
    userId: number;
    epoch: number;
    watermark: number;
    resumeToken: string;
  };
  return { ...body, resumeToken: Buffer.from(body.resumeToken, 'hex') };
}

export { Operation };
