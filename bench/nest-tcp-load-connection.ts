import { randomBytes } from 'node:crypto';
import { type Socket } from 'node:net';
import { benchPayload } from './bench-payload';
import { connectSocket } from './connect-socket';
import { type LoadConnection, SENT_AT_RING_MASK, SENT_AT_RING_SIZE } from './load-connection';
import { type LoadStats } from './load-stats';

/** Where a NestJS TCP load connection sends, and how big its payload is. */
export interface NestTcpTarget {
  readonly host: string;
  readonly port: number;
  readonly payloadBytes: number;
}

const DELIMITER = '#';
const ID_KEY = '"id":';
const DISPOSED = '"isDisposed":true';
const ERROR_KEY = '"err":';

/**
 * One connection to a NestJS TCP microservice, framed as its JsonSocket
 * frames (`<length>#<json>`), sending `{"pattern":"echo","data":…,"id":"n"}`
 * with ids 1, 2, … .
 *
 * A request completes at its `isDisposed` message, as it does for a NestJS
 * ClientProxy (the server sends `response` and `isDisposed` in one message or
 * two). Replies are scanned for their keys rather than JSON-parsed, for the
 * same reason the once connection skips checksums: the client must stay cheap.
 * The scan is unambiguous because the only other content of a reply is the
 * bench's own payload (hex, digits and `x`). Everything is ASCII, so the
 * JsonSocket's character count equals the byte count.
 */
export class NestTcpLoadConnection implements LoadConnection {
  onAnswered: (count: number) => void = () => undefined;

  private readonly sentAt = new Float64Array(SENT_AT_RING_SIZE);
  private readonly messagePrefix: string;
  private nextId = 1;
  private inFlightCount = 0;
  private buffered = '';

  private constructor(
    private readonly socket: Socket,
    private readonly stats: LoadStats,
    payloadBytes: number,
  ) {
    const payload = benchPayload(`bench-${randomBytes(8).toString('hex')}`, payloadBytes);
    this.messagePrefix = `{"pattern":"echo","data":${JSON.stringify(payload)},"id":"`;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  static async open(target: NestTcpTarget, stats: LoadStats): Promise<NestTcpLoadConnection> {
    const socket = await connectSocket(target.host, target.port);
    return new NestTcpLoadConnection(socket, stats, target.payloadBytes);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  send(count: number): void {
    const now = performance.now();
    let out = '';
    for (let i = 0; i < count; i++) {
      const id = this.nextId++;
      const message = `${this.messagePrefix}${id}"}`;
      out += `${message.length}${DELIMITER}${message}`;
      this.sentAt[id & SENT_AT_RING_MASK] = now;
    }
    this.inFlightCount += count;
    this.stats.sent(count, now);
    this.socket.write(out, 'latin1');
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const now = performance.now();
    let answered = 0;
    let text = this.buffered + chunk.toString('latin1');
    let offset = 0;
    for (;;) {
      const delimiter = text.indexOf(DELIMITER, offset);
      if (delimiter < 0) break;
      const length = Number(text.slice(offset, delimiter));
      const end = delimiter + 1 + length;
      if (!Number.isSafeInteger(length)) throw new Error('the server broke the framing');
      if (end > text.length) break;
      const message = text.slice(delimiter + 1, end);
      offset = end;
      const failed = message.includes(ERROR_KEY);
      if (!failed && !message.includes(DISPOSED)) continue; // the response before its isDisposed
      const id = parseInt(message.slice(message.lastIndexOf(ID_KEY) + ID_KEY.length + 1), 10);
      this.stats.answered(this.sentAt[id & SENT_AT_RING_MASK], now, !failed);
      answered++;
    }
    text = text.slice(offset);
    this.buffered = text;
    if (answered > 0) {
      this.inFlightCount -= answered;
      this.onAnswered(answered);
    }
  }
}
