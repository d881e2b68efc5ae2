import { type Socket } from 'node:net';
import { type Frame } from '@once/protocol';
import { FrameDecoder } from '@once/protocol/internal';
import { type ConnectionView, type SessionBinding } from '@once/framework';

/** What a connection needs from the gateway that owns it. */
export interface ConnectionHost {
  /** Handles one decoded frame; a returned promise holds back the next frame until it settles. */
  handleFrame(connection: GatewayConnection, frame: Frame): void | Promise<void>;
  /** A frame failed a framing check: answer it, then the connection closes. */
  handleBadFrame(connection: GatewayConnection, status: number, message: string): void;
  handleClose(connection: GatewayConnection): void;
  /** The gateway's `writeBufferBytesMax`: reply bytes a peer may leave unread. */
  readonly writeBufferBytesMax: number;
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
/** A framing check failed at this point of the byte stream. */
interface FramingFailure {
  readonly status: number;
  readonly message: string;
}

export class GatewayConnection implements ConnectionView {
  binding: SessionBinding | undefined;
  readonly remote: string;
  /** The peer's IP address (for per-address limits). */
  readonly address: string;
  /** Failed REGISTERs on this connection. */
  failedRegisters = 0;
  /** When bytes last arrived (ms, monotonic-enough wall clock), for the idle sweep. */
  lastActivityMs = Date.now();
  /**
   * Since when the connection holds no session (ms; 0: it holds one), for
   * the sweep's `unboundTimeoutMs`: set when it opens, and when the sweep
   * sees it without a session again.
   */
  unboundSinceMs = Date.now();
  /** Since when an incomplete frame has been held (0: none), for the slow-peer sweep. */
  partialSinceMs = 0;
  /**
   * The slow-peer sweep found more than `writeBufferBytesMax` unread at its
   * last pass: still so at the next one, the peer is closed.
   */
  overWriteLimitAtSweep = false;

  private readonly decoder: FrameDecoder;
  /** Frames in arrival order; a framing failure is queued after the frames before it. */
  private readonly queue: Array<Frame | FramingFailure> = [];
  private processing = false;
  /** Frames sent during this turn, written together at its end. */
  private turnFrames: Buffer[] = [];
  /** False once a framing check failed or a close began: no more bytes are decoded. */
  private reading = true;
  /** A close began: no more frames are handled. */
  private closing = false;
  private closedValue = false;

  /** A turn's frames up to this many bytes in all are copied into one write. */
  private static readonly TURN_CONCAT_BYTES_MAX = 65_536;
  /** Frames waiting beyond this many pause the socket. */
  private static readonly QUEUE_HIGH_WATER = 64;
  /**
   * After the node's FIN, how long the peer has to close its side before the
   * socket is destroyed. Without a bound a peer that keeps its half open
   * (or whose unread bytes hide its FIN) holds `server.close()`, and with it
   * a graceful stop, forever.
   */
  private static readonly CLOSE_GRACE_MS = 2_000;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
    frameBytesMax: number,
  ) {
    this.address = socket.remoteAddress ?? '?';
    this.remote = `${this.address}:${socket.remotePort ?? '?'}`;
    this.decoder = new FrameDecoder({ maxFrameBytes: frameBytesMax });
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

  /** Reply bytes written to the socket that the kernel has not taken yet: what the peer left unread. */
  get unreadReplyBytes(): number {
    return this.socket.writableLength;
  }

  /**
   * A frame was begun and not finished in time: answered BAD_FRAME after the
   * frames before it, then the connection closes.
   */
  failPartialFrame(message: string, status: number): void {
    if (!this.reading) return;
    this.reading = false;
    this.socket.pause();
    this.queue.push({ status, message });
    this.pump();
  }

  /**
   * Queues `frame` for this turn's write. The write-buffer limit is checked
   * when a turn begins, against what earlier turns left unflushed: replies
   * of the current turn (one large reply, a group commit's worth) are not
   * the peer's fault until it had the chance to read them. A burst whose
   * replies are all written in one turn leaves no later turn to check: the
   * slow-peer sweep checks those (`overWriteLimitAtSweep`).
   */
  send(frame: Buffer): void {
    if (this.closedValue) return;
    if (this.turnFrames.length === 0) {
      if (this.unreadReplyBytes > this.host.writeBufferBytesMax) {
        // The peer does not read its replies; holding them would hold the node's memory.
        this.destroy();
        return;
      }
      process.nextTick(this.flushTurn);
    }
    this.turnFrames.push(frame);
  }

  /**
   * Writes this turn's frames as one buffer: one stream write and one
   * buffer for the kernel instead of one of each per frame (a group
   * commit answers many requests of a connection in the same turn).
   */
  private readonly flushTurn = (): void => {
    const frames = this.turnFrames;
    if (frames.length === 0) return;
    this.turnFrames = [];
    if (this.closedValue || this.socket.writableEnded) return;
    let bytes = 0;
    for (const frame of frames) bytes += frame.length;
    if (frames.length > 1 && bytes <= GatewayConnection.TURN_CONCAT_BYTES_MAX) {
      this.socket.write(Buffer.concat(frames, bytes));
      return;
    }
    // Large replies are not copied again: the stream takes them as they are.
    this.socket.cork();
    for (const frame of frames) this.socket.write(frame);
    this.socket.uncork();
  };

  /** Sends `frame`, then closes once it is flushed; reads nothing more. */
  sendAndClose(frame: Buffer): void {
    if (this.closedValue || this.closing) return;
    this.stopIntake();
    this.closing = true;
    this.flushTurn();
    this.socket.end(frame);
    this.awaitPeerClose();
  }

  end(): void {
    if (this.closedValue) return;
    this.stopIntake();
    this.closing = true;
    this.flushTurn();
    this.socket.end();
    this.awaitPeerClose();
  }

  destroy(): void {
    if (this.closedValue) return;
    this.stopIntake();
    this.closing = true;
    this.turnFrames = [];
    this.socket.destroy();
  }

  /**
   * Once the node has sent its FIN: bytes still arriving are read and dropped
   * (`reading` is false), so the peer's FIN behind them is seen, and a peer
   * that never closes is cut after CLOSE_GRACE_MS.
   */
  private awaitPeerClose(): void {
    this.socket.resume();
    setTimeout(() => this.socket.destroy(), GatewayConnection.CLOSE_GRACE_MS).unref();
  }

  private stopIntake(): void {
    this.reading = false;
    this.queue.length = 0;
    this.socket.pause();
  }

  private onData(chunk: Buffer): void {
    if (!this.reading) return;
    this.lastActivityMs = Date.now();
    this.decoder.push(chunk);
    for (;;) {
      const result = this.decoder.next();
      if (!result) break;
      if (result.kind === 'error') {
        // The frames before it are answered first; nothing after it is read.
        this.queue.push({ status: result.status, message: result.message });
        this.reading = false;
        this.socket.pause();
        break;
      }
      this.queue.push(result.frame);
    }
    if (!this.decoder.hasPartialFrame) this.partialSinceMs = 0;
    else if (this.partialSinceMs === 0) this.partialSinceMs = this.lastActivityMs;
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
        const next = this.queue.shift()!;
        if (!('header' in next)) {
          this.host.handleBadFrame(this, next.status, next.message);
          return;
        }
        const pending = this.host.handleFrame(this, next);
        if (pending) await pending;
      }
    } finally {
      this.processing = false;
      if (this.reading && this.socket.isPaused()) this.socket.resume();
    }
  }

  private onClose(): void {
    if (this.closedValue) return;
    this.closedValue = true;
    this.closing = true;
    this.reading = false;
    this.queue.length = 0;
    this.host.handleClose(this);
  }
}
