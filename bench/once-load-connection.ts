import { type Socket } from 'node:net';
import { Command, Operation, STATUS_NAMES, Status, randomClientId } from '@once/protocol';
import { HEADER_SIZE, Offset, encodeFrame, readU64 } from '@once/protocol/internal';
import { benchPayload } from './bench-payload';
import { connectSocket } from './connect-socket';
import { FrameSplitter } from './frame-splitter';
import { type LoadConnection, SENT_AT_RING_MASK, SENT_AT_RING_SIZE } from './load-connection';
import { type LedgerAccounts } from './ledger-accounts';
import { type LoadStats } from './load-stats';
import { RandomAccountFrames } from './random-account-frames';
import { RequestFrameTemplate } from './request-frame-template';

/** Where and as whom a once load connection logs in. */
export interface OnceTarget {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly payloadBytes: number;
  /**
   * Deposit into an account drawn at random among these (opened
   * beforehand) for each request, instead of into the connection's own.
   */
  readonly accounts?: LedgerAccounts;
}

/** How a connection builds its deposit frames: one fixed account, or a random one each. */
interface DepositFrames {
  readonly frameBytes: number;
  writeInto(target: Buffer, offset: number, request: number): void;
}

/** The first bytes of an OK outcome body: a deposit the ledger refused is an error too. */
const OK_OUTCOME = Buffer.from('{"ok":true');
const SETUP_TIMEOUT_MS = 60_000;

/**
 * One session of the once protocol, driven as a load: it REGISTERs a random
 * client id, opens its own ledger account (request 1), then sends
 * `ledger.deposit` requests under consecutive request numbers from 2 on
 * (into its own account, or into random ones of `accounts`).
 *
 * Replies are read from the header only (`command`, `status`, `request`) plus
 * the first bytes of the outcome, without checksum verification; see
 * {@link FrameSplitter} and {@link RequestFrameTemplate} for why.
 */
export class OnceLoadConnection implements LoadConnection {
  onAnswered: (count: number) => void = () => undefined;

  private readonly splitter = new FrameSplitter();
  private readonly sentAt = new Float64Array(SENT_AT_RING_SIZE);
  private deposits: DepositFrames | undefined;
  private nextRequest = 1;
  private inFlightCount = 0;
  private setupWaiter: ((frame: Buffer) => void) | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly stats: LoadStats,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
  }

  /** Connects, registers and opens the account; resolves when deposits may start. */
  static async open(target: OnceTarget, stats: LoadStats): Promise<OnceLoadConnection> {
    const socket = await connectSocket(target.host, target.port);
    const connection = new OnceLoadConnection(socket, stats);
    try {
      await connection.setUp(target);
    } catch (error) {
      socket.destroy();
      throw error;
    }
    return connection;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  send(count: number): void {
    const template = this.deposits!;
    const frameBytes = template.frameBytes;
    const out = Buffer.allocUnsafe(frameBytes * count);
    const now = performance.now();
    for (let i = 0; i < count; i++) {
      const request = this.nextRequest++;
      template.writeInto(out, i * frameBytes, request);
      this.sentAt[request & SENT_AT_RING_MASK] = now;
    }
    this.inFlightCount += count;
    this.stats.sent(count, now);
    this.socket.write(out);
  }

  close(): void {
    this.socket.destroy();
  }

  private async setUp(target: OnceTarget): Promise<void> {
    const client = randomClientId();
    const registered = await this.exchange(
      encodeFrame(
        { command: Command.Request, operation: Operation.Register, client },
        JSON.stringify({ username: target.username, password: target.password }),
      ),
    );
    expectOk(registered, 'REGISTER');
    const session = readU64(registered, Offset.session);

    const payload = benchPayload(`bench-${client.slice(0, 16)}`, target.payloadBytes);
    const opened = await this.exchange(
      encodeFrame(
        {
          command: Command.Request,
          operation: Operation.Command,
          client,
          session,
          request: this.nextRequest++,
        },
        JSON.stringify({ pattern: 'ledger.open', data: { account: payload.account } }),
      ),
    );
    expectOk(opened, 'ledger.open');

    const fields = { operation: Operation.Command, client, session };
    this.deposits = target.accounts
      ? new RandomAccountFrames(fields, target.accounts, target.payloadBytes)
      : new RequestFrameTemplate(
          fields,
          Buffer.from(JSON.stringify({ pattern: 'ledger.deposit', data: payload })),
        );
  }

  /** Sends one setup frame and resolves with (a copy of) the next frame. */
  private exchange(frame: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.setupWaiter = undefined;
        reject(new Error(`no answer within ${SETUP_TIMEOUT_MS} ms during setup`));
      }, SETUP_TIMEOUT_MS);
      this.setupWaiter = (reply) => {
        clearTimeout(timer);
        this.setupWaiter = undefined;
        resolve(reply);
      };
      this.socket.write(frame);
    });
  }

  private onData(chunk: Buffer): void {
    const now = performance.now();
    let answered = 0;
    this.splitter.push(chunk, (bytes, offset, size) => {
      if (this.setupWaiter) {
        this.setupWaiter(Buffer.from(bytes.subarray(offset, offset + size)));
        return;
      }
      const ok =
        isOkReply(bytes, offset) &&
        size >= HEADER_SIZE + OK_OUTCOME.length &&
        OK_OUTCOME.compare(
          bytes,
          offset + HEADER_SIZE,
          offset + HEADER_SIZE + OK_OUTCOME.length,
        ) === 0;
      const request = readU64(bytes, offset + Offset.request);
      this.stats.answered(this.sentAt[request & SENT_AT_RING_MASK], now, ok);
      answered++;
    });
    if (answered > 0) {
      this.inFlightCount -= answered;
      this.onAnswered(answered);
    }
  }
}

/** Throws unless `reply` is an OK REPLY whose outcome (if any) is ok. */
function expectOk(reply: Buffer, what: string): void {
  const body = reply.subarray(HEADER_SIZE).toString('utf8');
  if (!isOkReply(reply, 0)) {
    const status = reply.readUInt16LE(Offset.status) as Status;
    const name = STATUS_NAMES[status] ?? String(status);
    throw new Error(`${what} answered ${name}: ${body}`);
  }
  if (body.startsWith('{"ok":false')) throw new Error(`${what} refused: ${body}`);
}

/** True when the frame at `offset` is a REPLY with status OK (not an EVICTION, not a refusal). */
function isOkReply(bytes: Buffer, offset: number): boolean {
  return (
    (bytes[offset + Offset.command] as Command) === Command.Reply &&
    (bytes.readUInt16LE(offset + Offset.status) as Status) === Status.Ok
  );
}
