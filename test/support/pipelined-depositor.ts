import { Command, type Frame, Operation, STATUS_NAMES, type Status } from '@once/protocol';
import { encodeFrame } from '@once/protocol/internal';
import {
  RawClient,
  RawClientClosedError,
  bodyJson,
  outcomeOf,
  registrationOf,
} from '@once/testing';
import { ADMIN_PASSWORD, type Session } from './sessions';

/** How a depositor got its session back after losing its connection. */
export interface Resume {
  readonly by: 'token' | 'register';
  /** Highest request number acknowledged before the connection was lost. */
  readonly highestAcked: number;
  /** Highest request number sent before the connection was lost. */
  readonly highestSent: number;
  /** Unacknowledged numbers resent, in the order they were resent. */
  readonly resent: readonly number[];
  /** The REGISTER reply's watermark (resume by REGISTER only). */
  readonly watermark?: number;
  /** The node's highest committed op when the client came back (PING), before it resent anything. */
  readonly commitBefore: number;
  /** Resent numbers answered from the reply cache (committed before the crash: op ≤ commitBefore). */
  readonly cached: number[];
  /** Resent numbers committed after the restart (op > commitBefore). */
  readonly fresh: number[];
}

export interface DepositorOptions {
  readonly port: () => number;
  /** A session the depositor owns (registered by the caller); request numbers start at 1. */
  readonly session: Session;
  readonly account: string;
  /** Deposits of 1 to make, numbered 1..total. */
  readonly total: number;
  /** Requests kept in flight at most. */
  readonly window: number;
  /**
   * Called after each acknowledgement with the number of distinct numbers
   * acknowledged so far. Returning true drops the connection at once: replies
   * the node already sent but the client has not read yet are lost, as when a
   * crash takes them with it.
   */
  readonly onAck?: (acknowledged: number) => boolean;
  /** Awaited when the connection is lost: resolves when the node accepts connections again. */
  readonly nodeBack: () => Promise<void>;
  /** How the n-th resume (0-based) gets the session back. */
  readonly resumeBy: (resume: number) => 'token' | 'register';
  readonly username?: string;
  readonly password?: string;
}

/**
 * A client of the ledger written to the protocol's rules for crashes, over
 * raw frames: it keeps up to `window` deposits in flight under consecutive
 * request numbers and, when the connection is lost, reconnects, resumes the
 * same session (implicit rebind with its token, or REGISTER of the same
 * client id) and resends every unacknowledged request under its original
 * number and body, in order. It never gives an old deposit a new number.
 *
 * Its bookkeeping is what the test asserts on: how many times each number was
 * acknowledged, and whatever the node answered that a correct node never would.
 */
export class PipelinedDepositor {
  /** Request number → how many replies acknowledged it. */
  readonly acknowledgements = new Map<number, number>();
  /** Answers a correct node never gives (duplicates, out-of-order replies, wrong balances). */
  readonly anomalies: string[] = [];
  readonly resumes: Resume[] = [];
  /** Request number → the bytes of the reply that first acknowledged it. */
  readonly replies = new Map<number, Buffer>();

  private session: Session;
  private readonly body: string;
  /** Sent and not acknowledged, ascending. */
  private pending: number[] = [];
  private nextNumber = 1;

  constructor(private readonly options: DepositorOptions) {
    this.session = options.session;
    this.body = JSON.stringify({
      pattern: 'ledger.deposit',
      data: { account: options.account, amount: 1 },
    });
  }

  get acknowledged(): number {
    return this.acknowledgements.size;
  }

  /** Runs until every deposit 1..total is acknowledged. */
  async run(): Promise<void> {
    let raw = await RawClient.connect(this.options.port());
    try {
      while (this.acknowledged < this.options.total) {
        try {
          this.fill(raw);
          if (this.handle(await raw.next(20_000))) {
            raw.destroy();
            throw new RawClientClosedError('dropped by the test');
          }
        } catch (error) {
          if (!(error instanceof RawClientClosedError)) throw error;
          raw.destroy();
          await this.options.nodeBack();
          raw = await RawClient.connect(this.options.port());
          await this.resume(raw);
        }
      }
    } finally {
      raw.destroy();
    }
  }

  private fill(raw: RawClient): void {
    while (
      !raw.closed &&
      this.pending.length < this.options.window &&
      this.nextNumber <= this.options.total
    ) {
      const request = this.nextNumber++;
      this.pending.push(request);
      raw.write(this.frameOf(request));
    }
  }

  /** The request frame of deposit `request` under `session` (the body is the same for all). */
  frameOf(request: number, session: Session = this.session): Buffer {
    return encodeFrame(
      {
        command: Command.Request,
        operation: Operation.Command,
        client: session.client,
        session: session.epoch,
        request,
        resumeToken: session.resumeToken,
      },
      this.body,
    );
  }

  /** Books one answer; returns true when the connection is to be dropped now. */
  private handle(frame: Frame): boolean {
    const { command, status, request, client } = frame.header;
    if (command !== (Command.Reply as number) || status !== 0 || client !== this.session.client) {
      throw new Error(
        `unexpected answer to request ${request}: command ${command}, status ${STATUS_NAMES[status as Status] ?? status}, client ${client}, body ${frame.body.toString('utf8')}`,
      );
    }
    const times = (this.acknowledgements.get(request) ?? 0) + 1;
    this.acknowledgements.set(request, times);
    if (times > 1) this.anomalies.push(`request ${request} acknowledged ${times} times`);
    else this.replies.set(request, Buffer.from(frame.raw));
    if (this.pending[0] !== request) {
      this.anomalies.push(
        `reply to request ${request} while the oldest unacknowledged was ${this.pending[0]}`,
      );
    }
    this.pending = this.pending.filter((number) => number !== request);
    const outcome = outcomeOf(frame);
    // Each deposit adds 1 to a fresh account: applied once and in order, request r leaves balance r.
    if (!outcome.ok || (outcome.result as { balance?: unknown }).balance !== request) {
      this.anomalies.push(`request ${request} answered ${frame.body.toString('utf8')}`);
    }
    const resume = this.resumes.at(-1);
    if (resume?.resent.includes(request) && times === 1) {
      (frame.header.op <= resume.commitBefore ? resume.cached : resume.fresh).push(request);
    }
    return times === 1 && this.options.onAck?.(this.acknowledged) === true;
  }

  private async resume(raw: RawClient): Promise<void> {
    const by = this.options.resumeBy(this.resumes.length);
    const highestAcked = Math.max(0, ...this.acknowledgements.keys());
    const highestSent = this.nextNumber - 1;
    const ping = bodyJson(await raw.ping()) as { commit: number; ready: boolean };
    if (!ping.ready) throw new Error('the node is back but not ready');
    let watermark: number | undefined;
    if (by === 'register') {
      const reply = await raw.register(
        this.session.client,
        this.options.username ?? 'admin',
        this.options.password ?? ADMIN_PASSWORD,
      );
      if (reply.header.command !== (Command.Reply as number) || reply.header.status !== 0) {
        throw new Error(
          `REGISTER to resume answered command ${reply.header.command} status ${reply.header.status}: ${reply.body.toString('utf8')}`,
        );
      }
      const registration = registrationOf(reply);
      watermark = registration.watermark;
      this.session = { ...registration, client: this.session.client };
    }
    const resent = [...this.pending];
    this.resumes.push({
      by,
      highestAcked,
      highestSent,
      resent,
      watermark,
      commitBefore: ping.commit,
      cached: [],
      fresh: [],
    });
    for (const request of resent) raw.write(this.frameOf(request));
  }
}
