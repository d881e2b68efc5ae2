import { type Socket } from 'node:net';
import { type Frame, FrameDecoder } from '@once/protocol';
import { type ConnectionView } from './once-rpc-context';
import { type SessionBinding } from './session-binding';

/** What a connection needs from the gateway that owns it. */
export interface ConnectionHost {
  /** Handles one decoded frame; a returned promise holds back the next frame until it settles. */
  handleFrame(connection: GatewayConnection, frame: Frame): void | Promise<void>;
  /** A frame failed a framing check: answer it, then the connection closes. */
  handleBadFrame(connection: GatewayConnection, status: number, message: string): void;
  handleClose(connection: GatewayConnection): void;
  readonly maxWriteBufferBytes: number;
}

/**
 * One TCP connection: decodes frames, hands them to the gateway strictly one
 * at a time and in order (a request's admission finishes before the next
 * frame of the same connection is looked at), and batches replies per
 * event-loop turn (cork, then uncork on the next tick: one write for all the
 * replies a group commit produced).
 *
 * Backpressure: while frames wait (a session at its in-flight limit, a full
 * journal queue) the socket is paused, so TCP slows the peer; nothing is
 * answered "busy".
 */
export class GatewayConnection implements ConnectionView {
  binding: SessionBinding | undefined;
  /** Whether a COMMAND was admitted on this connection since it was bound (it may hold connection-scoped state). */
  admittedSinceBind = false;
  readonly remote: string;

  private readonly decoder: FrameDecoder;
  private readonly queue: Frame[] = [];
  private processing = false;
  private corked = false;
  private closing = false;
  private closedValue = false;

  /** Frames waiting beyond this many pause the socket. */
  private static readonly QUEUE_HIGH_WATER = 64;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
    maxFrameBytes: number,
  ) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    this.decoder = new FrameDecoder({ maxFrameBytes });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.onClose());
    socket.on('error', () => {
      // 'close' follows; a reset peer is not an error of the node.
    });
  }

  get closed(): boolean {
    return this.closedValue;
  }

  /** True while bytes of an incomplete frame are held (for slow-peer timeouts). */
  get hasPartialFrame(): boolean {
    return this.decoder.hasPartialFrame;
  }

  /** Queues `frame` for this turn's write. */
  send(frame: Buffer): void {
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
    if (this.socket.writableLength > this.host.maxWriteBufferBytes) {
      // The peer does not read its replies; holding them would hold the node's memory.
      this.destroy();
    }
  }

  /** Sends `frame`, then closes once it is flushed; reads nothing more. */
  sendAndClose(frame: Buffer): void {
    if (this.closedValue || this.closing) return;
    this.closing = true;
    this.queue.length = 0;
    this.socket.pause();
    this.socket.end(frame);
  }

  /** Stops taking new frames (graceful stop); what is queued is dropped, the socket stays open for replies. */
  stopReading(): void {
    this.closing = true;
    this.queue.length = 0;
    this.socket.pause();
  }

  end(): void {
    if (this.closedValue) return;
    this.closing = true;
    this.socket.end();
  }

  destroy(): void {
    if (this.closedValue) return;
    this.closing = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    this.decoder.push(chunk);
    for (;;) {
      const result = this.decoder.next();
      if (!result) break;
      if (result.kind === 'error') {
        this.queue.length = 0;
        this.host.handleBadFrame(this, result.status, result.message);
        return;
      }
      this.queue.push(result.frame);
    }
    if (this.queue.length >= GatewayConnection.QUEUE_HIGH_WATER) this.socket.pause();
    this.pump();
  }

  private pump(): void {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.closing) {
        const frame = this.queue.shift()!;
        const pending = this.host.handleFrame(this, frame);
        if (pending) await pending;
      }
    } finally {
      this.processing = false;
      if (!this.closing && this.socket.isPaused()) this.socket.resume();
    }
  }

  private onClose(): void {
    if (this.closedValue) return;
    this.closedValue = true;
    this.closing = true;
    this.queue.length = 0;
    this.host.handleClose(this);
  }
}
