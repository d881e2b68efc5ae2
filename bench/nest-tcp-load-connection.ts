import { randomBytes } from 'node:crypto';
import { type Socket } from 'node:net';
import { benchPayload } from './bench-payload';
import { connectSocket } from './connect-socket';
import { type LoadConnection, SENT_AT_RING_MASK, SENT_AT_RING_SIZE } from './load-connection';
import { type LoadStats } from './load-stats';

/** Where a NestJS TCP load connection sends, what, and how big its payload is. */
export interface NestTcpTarget {
  readonly host: string;
  readonly port: number;
  readonly payloadBytes: number;
  /**
   * `echo`: the same `data` every time. `deposit`: `data` also carries a
   * `key` new with every request (the connection's id and the request's id,
   * zero-padded so that every payload keeps `payloadBytes`), as a client of
   * the durable peers sends it.
   */
  readonly pattern: 'echo' | 'deposit';
}

/** Digits of the request id in a deposit's key: a constant size. */
const KEY_ID_DIGITS = 10;

const DELIMITER = '#';
const ID_KEY = '"id":';
const DISPOSED = '"isDisposed":true';
const ERROR_KEY = '"err":';

/**
 * One connection to a NestJS TCP microservice, framed as its JsonSocket
 * frames (`<length>#<json>`), sending `{"pattern":"echo","data":…,"id":"n"}`
 * with ids 1, 2, … (or `deposit`, its data starting with a unique `key`).
 *
 * A request completes at its `isDisposed` message, as it does for a NestJS
 * ClientProxy (the server sends `response` and `isDisposed` in one message or
 * two). Replies are scanned for their keys rather than JSON-parsed, for the
 * same reason the once connection skips checksums: the client must stay cheap.
 * The scan is unambiguous because the only other content of a reply is the
 * bench's own payload (hex, digits and `x`) or a durable peer's stored reply
 * (`{"ok":true,"balance":N}`, as a JSON string). Everything is ASCII, so the
 * JsonSocket's character count equals the byte count.
 */
export class NestTcpLoadConnection implements LoadConnection {
  onAnswered: (count: number) => void = () => undefined;

  private readonly sentAt = new Float64Array(SENT_AT_RING_SIZE);
  private readonly messagePrefix: string;
  /** `deposit`: what follows the key's id in the message, up to the message id. */
  private readonly keySuffix: string | undefined;
  private nextId = 1;
  private inFlightCount = 0;
  private buffered = '';

  private constructor(
    private readonly socket: Socket,
    private readonly stats: LoadStats,
    payloadBytes: number,
    pattern: NestTcpTarget['pattern'],
  ) {
    const connectionId = randomBytes(8).toString('hex');
    if (pattern === 'echo') {
      const payload = benchPayload(`bench-${connectionId}`, payloadBytes);
      this.messagePrefix = `{"pattern":"echo","data":${JSON.stringify(payload)},"id":"`;
    } else {
      const keyField = `"key":"${connectionId}-${'0'.repeat(KEY_ID_DIGITS)}",`;
      const payload = benchPayload(`bench-${connectionId}`, payloadBytes - keyField.length);
      this.messagePrefix = `{"pattern":"deposit","data":{"key":"${connectionId}-`;
      this.keySuffix = `",${JSON.stringify(payload).slice(1)},"id":"`;
    }
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  static async open(target: NestTcpTarget, stats: LoadStats): Promise<NestTcpLoadConnection> {
    const socket = await connectSocket(target.host, target.port);
    return new NestTcpLoadConnection(socket, stats, target.payloadBytes, target.pattern);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  send(count: number): void {
    const now = performance.now();
    let out = '';
    for (let i = 0; i < count; i++) {
      const id = this.nextId++;
      const message =
        this.keySuffix === undefined
          ? `${this.messagePrefix}${id}"}`
          : `${this.messagePrefix}${String(id).padStart(KEY_ID_DIGITS, '0')}${this.keySuffix}${id}"}`;
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
