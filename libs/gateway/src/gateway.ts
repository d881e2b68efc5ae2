import { Logger } from '@nestjs/common';
import { type Socket } from 'node:net';
import { type ApplyOutcome, type Engine } from '@once/engine/internal';
import { type ClientEntry } from '@once/client-table/internal';
import {
  type GatewayException,
  OnceRpcContext,
  type OnceRuntime,
  type SessionBinding,
  SessionEvictedException,
  type SessionGate,
} from '@once/framework';
import {
  type ClientId,
  type EvictionReason,
  type Frame,
  STATUS_NAMES,
  Status,
} from '@once/protocol';
import { type ParsedRequest, verifyResumeToken } from '@once/protocol/internal';
import * as protocol from '@once/protocol/internal';
import * as wire from '@once/protocol';
import { type AdmissionHost } from './admission-host';
import {
  INTERNAL_ERROR_MESSAGE,
  NOT_READY_MESSAGE,
  answerFrame,
  badFrameReply,
  notLeaderAnswer,
  pingReply,
  sessionRefusalFrame,
} from './gateway-answers';
import { GatewayConnection, type ConnectionHost } from './gateway-connection';
import { type ResolvedGatewayOptions } from './gateway-options';
import { HandlerPipeline, type HandlerSource } from './handler-pipeline';
import { JournalRoom } from './journal-room';
import { QueryService } from './query-service';
import { RegisterAdmission } from './register-admission';
import { ReplicatedAdmission } from './replicated-admission';
import { ReplyRouter } from './reply-router';
import { SessionFlights } from './session-flights';
import { SlowPeerSweep } from './slow-peer-sweep';

/**
 * The protocol helpers every frame's dispatch uses, read from the package once: in the built
 * CommonJS a named import from another package is read through a getter of the package's index at
 * every use, and dispatching a frame runs per request.
 */
const { parseRequest } = protocol;
const { Operation } = wire;

type Replicated = Extract<
  ParsedRequest,
  { operation: wire.Operation.Command | wire.Operation.Logout }
>;
type Query = Extract<ParsedRequest, { operation: wire.Operation.Query }>;

/**
 * The protocol engine of the TCP gateway. It keeps the control flow of one
 * request; each step is a piece of its own:
 *
 *     frame → parseRequest → PING | not ready | REGISTER → RegisterAdmission
 *                                              | QUERY    → QueryService
 *                                              | COMMAND, LOGOUT → ReplicatedAdmission
 *     applied outcome → ReplicatedAdmission.settle → ReplyRouter.deliver
 *
 * The listener may open before the data directory is (a hybrid app starts
 * its microservices before module init): until the engine is open and ready,
 * PING says not ready and everything else is NOT_READY.
 */
export class Gateway implements ConnectionHost, AdmissionHost, SessionGate {
  readonly writeBufferBytesMax: number;
  readonly logger = new Logger('OnceGateway');
  private readonly connections = new Map<number, GatewayConnection>();
  /** Open connections per peer address, for `connectionsPerAddressMax`. */
  private readonly perAddress = new Map<string, number>();
  /** Connections refused by the per-address cap since the last warning (one warning per 10 s). */
  private refusedOverCap = 0;
  private lastCapWarningMs = 0;
  private readonly flights = new SessionFlights<GatewayConnection>();
  private readonly router: ReplyRouter;
  private readonly room: JournalRoom;
  private readonly registers: RegisterAdmission;
  private readonly replicated: ReplicatedAdmission;
  private readonly queries: QueryService;
  private readonly sweep: SlowPeerSweep;
  private nextConnectionId = 1;
  private stopping = false;
  /** Frames whose handling (admission, authentication) is still under way. */
  private inProgress = 0;
  private engineValue: Engine | undefined;
  private unsubscribe: () => void = () => undefined;
  /**
   * Told, in ms, how long each applied COMMAND or LOGOUT took from its
   * admission to its reply being written (metrics); unset, nothing is timed.
   */
  replyLatencyObserver: ((latencyMs: number) => void) | undefined;

  constructor(
    runtime: OnceRuntime,
    private readonly options: ResolvedGatewayOptions,
    handlers: HandlerSource,
  ) {
    this.writeBufferBytesMax = options.writeBufferBytesMax;
    this.router = new ReplyRouter({
      commitOp: () => this.commitOp,
      watermarkOf: (client) => this.engine.table.get(client)?.watermark ?? 0,
      release: (client) => this.journalRelease(client),
    });
    this.room = new JournalRoom(
      options.pendingEntriesMax,
      () => this.engineValue?.journal.pendingCount ?? 0,
      () => this.engineValue?.replyCheckDue === true,
    );
    const pipeline = new HandlerPipeline(handlers, undefined, (route) =>
      runtime.bareAdmission(route),
    );
    this.registers = new RegisterAdmission(this, runtime, this.room, this.router, {
      failedPerConnection: options.registerFailuresPerConnectionMax,
      failedPerAddressPerMinute: options.registerFailuresPerAddressPerMinuteMax,
      failedPerUserPerMinute: options.registerFailuresPerUserPerMinuteMax,
    });
    this.replicated = new ReplicatedAdmission(this, this.flights, this.room, pipeline, this.router);
    this.queries = new QueryService(this, pipeline);
    this.sweep = new SlowPeerSweep(() => this.connections.values(), options);
    runtime.whenOpen().then(
      (engine) => this.attach(engine),
      () => undefined,
    );
  }

  private attach(engine: Engine): void {
    this.engineValue = engine;
    const offApplied = engine.onApplied((outcome) => this.afterApply(outcome));
    const offPhase = engine.onPhase((phase) => {
      if (phase === 'failed') this.failAdmitted();
    });
    const offTerm = engine.onTermEnd(() => this.leadershipEnded());
    this.unsubscribe = () => {
      offApplied();
      offPhase();
      offTerm();
    };
  }

  /** The engine; read only once serving (handleFrame checks). */
  get engine(): Engine {
    return this.engineValue!;
  }

  /** The commit op every non-replicated reply carries: 0 until the journal is open. */
  private get commitOp(): number {
    return this.engineValue?.commitOp ?? 0;
  }

  /** Open client connections (read by metrics at scrape time). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** COMMAND and LOGOUT requests admitted and not applied yet, over every session. */
  get requestsInFlight(): number {
    return this.flights.requestCount;
  }

  serving(connection?: GatewayConnection): boolean {
    return this.engineValue?.ready === true && !this.stopping && !connection?.closed;
  }

  accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const address = socket.remoteAddress ?? '?';
    const open = this.perAddress.get(address) ?? 0;
    if (open >= this.options.connectionsPerAddressMax) {
      this.refuseOverCap(address);
      socket.destroy();
      return;
    }
    this.perAddress.set(address, open + 1);
    const connection = new GatewayConnection(
      this.nextConnectionId++,
      socket,
      this,
      this.options.frameBytesMax,
    );
    this.connections.set(connection.id, connection);
    this.logger.debug?.(`connection #${connection.id} from ${connection.remote} opened`);
  }

  /** Says, at most every 10 s, how many connections the per-address cap refused. */
  private refuseOverCap(address: string): void {
    this.refusedOverCap++;
    const now = Date.now();
    if (now - this.lastCapWarningMs < 10_000) return;
    this.lastCapWarningMs = now;
    this.logger.warn(
      `connection from ${address} refused: ${this.options.connectionsPerAddressMax} connections from it are open (connectionsPerAddressMax); ${this.refusedOverCap} refused since the last warning`,
    );
    this.refusedOverCap = 0;
  }

  // ------------------------------------------------------------ frame intake

  handleBadFrame(connection: GatewayConnection, status: number, message: string): void {
    this.logger.warn(
      `connection #${connection.id} from ${connection.remote}: ${STATUS_NAMES[status as Status]}: ${message}; closing`,
    );
    connection.sendAndClose(badFrameReply(status, message, this.commitOp));
  }

  handleFrame(connection: GatewayConnection, frame: Frame): void | Promise<void> {
    try {
      const parsed = parseRequest(frame);
      if (!parsed.ok) {
        return this.answer(connection, frame, Status.InvalidRequest, parsed.message);
      }
      const request = parsed.request;
      if (request.operation === Operation.Ping) {
        const view = this.engineValue?.role.view;
        const stopped = this.engineValue?.stoppedApplying;
        return connection.send(pingReply(frame, this.commitOp, this.serving(), view, stopped));
      }
      if (!this.serving()) {
        const phase = this.stopping ? 'stopping' : (this.engineValue?.phase ?? 'opening');
        const message = `the node is ${phase}; retry the same frame later`;
        return this.answer(connection, frame, Status.NotReady, message);
      }
      if (!this.engine.role.writable) {
        // A follower: its state may lag the leader's, and it cannot append.
        const leader = this.engine.role.view.leader;
        return connection.send(notLeaderAnswer(frame, leader, this.commitOp));
      }
      switch (request.operation) {
        case Operation.Register:
          return this.guarded(connection, frame, this.registers.admit(connection, frame, request));
        case Operation.Query:
          return this.guarded(connection, frame, this.query(connection, frame, request));
        default: {
          const admission = this.replicatedRequest(connection, frame, request);
          return admission && this.guarded(connection, frame, admission);
        }
      }
    } catch (error) {
      this.internalError(connection, frame, error);
    }
  }

  /**
   * An unexpected error is a bug of the node, never of the client: logged,
   * answered NOT_READY (retryable). Chained rather than an async function:
   * every admitted command passes here, and an await costs a promise and a
   * microtask turn of its own.
   */
  private guarded(connection: GatewayConnection, frame: Frame, work: Promise<void>): Promise<void> {
    this.inProgress++;
    return work.then(
      () => {
        this.inProgress--;
      },
      (error: unknown) => {
        try {
          this.internalError(connection, frame, error);
        } finally {
          this.inProgress--;
        }
      },
    );
  }

  private internalError(connection: GatewayConnection, frame: Frame, error: unknown): void {
    this.logger.error(
      `connection #${connection.id}: unexpected ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    this.answer(connection, frame, Status.NotReady, INTERNAL_ERROR_MESSAGE);
  }

  answer(
    connection: GatewayConnection,
    frame: Frame,
    status: Status,
    message: string,
    watermark = 0,
  ): void {
    connection.send(answerFrame(frame, status, message, this.commitOp, watermark));
  }

  private refuse(connection: GatewayConnection, frame: Frame, refusal: GatewayException): void {
    connection.send(sessionRefusalFrame(frame, refusal, this.commitOp));
    // An EVICTION ends what this connection held of the session.
    if (refusal instanceof SessionEvictedException) this.router.unbind(connection, false);
  }

  // ------------------------------------------------------- COMMAND and LOGOUT

  /**
   * Preflight, then admission; a full ring or journal holds this connection
   * and looks again. Answers given from the preflight are sent in the
   * caller's turn (nothing to wait for); admission returns a promise only when it awaits.
   */
  private replicatedRequest(
    connection: GatewayConnection,
    frame: Frame,
    request: Replicated,
  ): Promise<void> | void {
    const pattern = request.operation === Operation.Command ? request.pattern : '';
    for (;;) {
      const context = this.contextFor(connection, frame, pattern);
      const verdict = this.replicated.preflight(context);
      switch (verdict.kind) {
        case 'refused':
          return this.refuse(connection, frame, verdict.refusal);
        case 'resume':
          this.router.bindResumed(connection, verdict.binding);
          continue;
        case 'duplicate':
          return connection.send(verdict.reply);
        case 'answer':
          return this.answer(connection, frame, verdict.status, verdict.message, verdict.watermark);
        case 'in-flight':
          return; // Its reply goes to the session's holder when it commits.
        case 'full':
          return this.whenRoom(connection, frame, request, verdict.room);
        case 'admit': {
          const refused = this.replicated.admit(connection, frame, request, context);
          if (!(refused instanceof Promise)) return this.refuseIf(connection, frame, refused);
          return refused.then((settled) => this.refuseIf(connection, frame, settled));
        }
      }
    }
  }

  /** Answers a session guard's refusal of an admitted request, if there is one. */
  private refuseIf(
    connection: GatewayConnection,
    frame: Frame,
    refused: GatewayException | undefined,
  ): void {
    if (refused) this.refuse(connection, frame, refused);
  }

  /** Holds this connection (TCP backpressure) until `room`, then looks again from the session rules. */
  private async whenRoom(
    connection: GatewayConnection,
    frame: Frame,
    request: Replicated,
    room: Promise<void>,
  ): Promise<void> {
    await room;
    if (!this.serving(connection) || !this.engine.role.writable) {
      return this.answer(connection, frame, Status.NotReady, NOT_READY_MESSAGE);
    }
    return this.replicatedRequest(connection, frame, request);
  }

  // ------------------------------------------------------------------- QUERY

  private async query(connection: GatewayConnection, frame: Frame, request: Query): Promise<void> {
    const context = this.contextFor(connection, frame, request.pattern);
    const refused = this.queries.preflight(context);
    if (refused) return this.refuse(connection, frame, refused);
    const reply = await this.queries.serve(context, request);
    if (Buffer.isBuffer(reply)) connection.send(reply);
    else this.refuse(connection, frame, reply);
  }

  private contextFor(connection: GatewayConnection, frame: Frame, pattern: string): OnceRpcContext {
    return new OnceRpcContext(connection, frame, pattern, this);
  }

  // ------------------------------------------------ SessionGate, for the session guards

  tableEntry(client: ClientId): ClientEntry | undefined {
    return this.engine.table.get(client);
  }

  goneReason(client: ClientId): EvictionReason {
    return this.engine.goneReason(client);
  }

  verifyResumeToken(client: ClientId, session: number, token: Uint8Array): boolean {
    return verifyResumeToken(this.engine.journal.nodeSecret, client, session, token);
  }

  bindResumed(connectionId: number, binding: SessionBinding): void {
    const connection = this.connections.get(connectionId);
    if (connection) this.router.bindResumed(connection, binding);
  }

  // ------------------------------------------------------------ applied outcomes

  /** Every applied entry: its ring place is free, its reply and EVICTIONs go out, room may open. */
  private afterApply(outcome: ApplyOutcome): void {
    const settled = this.replicated.settle(outcome);
    this.router.deliver(outcome, settled?.origin, settled?.checksum);
    if (settled !== undefined && this.replyLatencyObserver !== undefined) {
      this.replyLatencyObserver(performance.now() - settled.admittedAtMs);
    }
    this.room.wake();
  }

  /** The journal failed: everything admitted is answered NOT_READY, waiters find out. */
  private failAdmitted(): void {
    this.replicated.failInFlight(this.commitOp);
    this.registers.failPending();
    this.room.wakeAll();
  }

  /**
   * This cluster node stopped leading: what it admitted is answered
   * NOT_READY, and every connection is closed, so each client fails over to
   * the new leader and settles its in-doubt requests there by their cached
   * replies (a bound connection here could no longer be served).
   */
  private leadershipEnded(): void {
    this.failAdmitted();
    for (const connection of this.connections.values()) connection.end();
  }

  /** Journals that `client`'s holder went away, behind the session's admissions still on their way. */
  private journalRelease(client: ClientId): void {
    void this.flights.serialize(client, () => {
      // At the next boot, or the next leader's first entry, a BOOT releases everything.
      if (!this.engineValue?.ready || !this.engineValue.role.writable) return;
      try {
        this.engineValue.submitRelease(client);
      } catch (error) {
        this.logger.warn(`release of client ${client} not journaled: ${String(error)}`);
      }
    });
  }

  handleClose(connection: GatewayConnection): void {
    if (!this.connections.delete(connection.id)) return;
    const open = (this.perAddress.get(connection.address) ?? 1) - 1;
    if (open > 0) this.perAddress.set(connection.address, open);
    else this.perAddress.delete(connection.address);
    const client = connection.binding?.client;
    this.router.unbind(connection, true);
    this.logger.debug?.(
      `connection #${connection.id} closed${client ? ` (client ${client})` : ''}`,
    );
  }

  // --------------------------------------------------------------- shutdown

  /**
   * Graceful stop: no new connections or frames; requests already admitted
   * commit and their replies are written; then every connection closes.
   */
  async stop(): Promise<void> {
    // Frames keep being read and are answered NOT_READY (retry later) while
    // what was admitted commits and is answered.
    this.stopping = true;
    this.registers.stop();
    const engine = this.engineValue;
    while (
      engine &&
      engine.phase !== 'failed' &&
      (this.inProgress > 0 || engine.journal.pendingCount > 0)
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setImmediate(resolve));
    for (const connection of this.connections.values()) connection.end();
    this.sweep.stop();
    this.unsubscribe();
  }
}
