import { connect, isIP, type Socket } from 'node:net';
import { type ConnectionOptions, TLSSocket, connect as connectTls } from 'node:tls';
import { type Frame } from '@once/protocol';
import { FrameDecoder } from '@once/protocol/internal';

/** What a link reports to its owner. */
export interface LinkHandler {
  onFrame(link: NodeLink, frame: Frame): void;
  /** The link is gone; `error` says why when it was not closed by the owner. */
  onClosed(link: NodeLink, error: Error | undefined): void;
}

/** Largest reply the SDK accepts: far above the node's request limit (results may be large). */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/**
 * One TCP connection to a node: frames out, decoded frames in. It knows
 * nothing of sessions; the identity lives in the client, which outlives every
 * link (PROTOCOL.md, "Transport disconnect").
 *
 * Writes of one event-loop turn go out together (cork, uncork on the next
 * tick), so a batch of pipelined commands costs one segment, not one each.
 * After `destroy()` or a close, nothing more is reported.
 */
export class NodeLink {
  private readonly decoder = new FrameDecoder({ maxFrameBytes: MAX_REPLY_BYTES });
  private corked = false;
  private closedValue = false;

  private constructor(
    private readonly socket: Socket,
    private readonly handler: LinkHandler,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.close(error));
    socket.on('close', () => this.close(new Error('the node closed the connection')));
  }

  /** Connects, or rejects with the socket's error (or a timeout after `timeoutMs`). */
  static open(
    host: string,
    port: number,
    timeoutMs: number,
    handler: LinkHandler,
    tls?: ConnectionOptions,
  ): Promise<NodeLink> {
    return new Promise((resolve, reject) => {
      const socket = tls
        ? connectTls({ ...(isIP(host) === 0 && { servername: host }), ...tls, host, port })
        : connect({ host, port });
      const ready = tls ? 'secureConnect' : 'connect';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onError = (error: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.once('error', onError);
      socket.once(ready, () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(new NodeLink(socket, handler));
      });
    });
  }

  get closed(): boolean {
    return this.closedValue;
  }

  /**
   * The connection is TLS and the node's certificate verified against the
   * client's trusted CAs (and its name, unless the options turned that off).
   * False for plain TCP, and for TLS whose certificate was not verified.
   */
  get verified(): boolean {
    return this.socket instanceof TLSSocket && this.socket.authorized;
  }

  /** Queues `frame` for this turn's write; ignored once closed. */
  write(frame: Buffer): void {
    if (this.closedValue) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(frame);
  }

  /** Closes the link from this side; the handler hears nothing more. */
  destroy(): void {
    if (this.closedValue) return;
    this.closedValue = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closedValue) return;
    this.decoder.push(chunk);
    for (;;) {
      if (this.closedValue) return;
      const result = this.decoder.next();
      if (!result) return;
      if (result.kind === 'error') {
        this.close(new Error(`the node sent a bad frame: ${result.message}`));
        this.socket.destroy();
        return;
      }
      this.handler.onFrame(this, result.frame);
    }
  }

  private close(error: Error): void {
    if (this.closedValue) return;
    this.closedValue = true;
    this.socket.destroy();
    this.handler.onClosed(this, error);
  }
}
