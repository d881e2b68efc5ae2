import { type CanActivate, Logger } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { type MessageHandler } from '@nestjs/microservices';
import { type Socket } from 'node:net';
import { isObservable, lastValueFrom, type Observable } from 'rxjs';
import { type ClientEntry } from '@once/client-table';
import {
  type ApplyOutcome,
  type EndedSession,
  type Engine,
  EngineUnavailableError,
  encodeCommandBody,
} from '@once/engine';
import { AdmissionTicket, type OnceRuntime, ONCE_PATTERN_KIND, RAW_PAYLOAD } from '@once/framework';
import { EntryKind } from '@once/journal';
import {
  type ClientId,
  Command,
  EvictionReason,
  type Frame,
  Operation,
  type ParsedRequest,
  STATUS_NAMES,
  Status,
  ZERO_CHECKSUM,
  encodeFrame,
  encodeReplyTo,
  errorBody,
  okBody,
  parseRequest,
  verifyResumeToken,
  withRequestChecksum,
} from '@once/protocol';
import { EpochAheadException } from '@once/framework';
import { GatewayException } from '@once/framework';
import { InvalidRequestException } from '@once/framework';
import { NotBoundException } from '@once/framework';
import { SessionEvictedException } from '@once/framework';
import { GatewayConnection, type ConnectionHost } from './gateway-connection';
import { type ResolvedGatewayOptions } from './gateway-options';
import { EpochFenceGuard } from '@once/framework';
import { ResumeGuard } from '@once/framework';
import { OnceRpcContext } from '@once/framework';
import { type SessionBinding } from '@once/framework';
import { SessionBindings } from './session-bindings';
import { RegisterRateLimiter } from './register-rate-limiter';
import { SessionFlights } from './session-flights';
import { type SessionGate } from '@once/framework';

/** The NestJS side the gateway dispatches to: the strategy's registered message handlers. */
export interface HandlerSource {
  getHandlerByPattern(pattern: string): MessageHandler | null;
  transformToObservable<T>(value: T | Promise<T> | Observable<T>): Observable<T>;
}

type Replicated = Extract<ParsedRequest, { operation: Operation.Command | Operation.Logout }>;
type Query = Extract<ParsedRequest, { operation: Operation.Query }>;
type Register = Extract<ParsedRequest, { operation: Operation.Register }>;

/**
 * The protocol engine of the TCP gateway: connection state (unbound → bound →
 * unbound), the session guards, the preflight against the client table and
 * the session's in-flight requests, admission through the NestJS pipeline,
 * and the routing of committed replies to whichever connection holds the
 * session when they commit.
 *
 * Invariants:
 * - at most one connection holds a session; a resume supersedes the
 *   previous holder, a REGISTER fences it (see SessionBindings);
 * - a session's requests reach the journal in request order, at most `ring`
 *   in flight;
 * - nothing a client sends is journaled before it passed the checks that
 *   PROTOCOL.md answers without journaling.
 */
export class Gateway implements ConnectionHost, SessionGate {
  readonly maxWriteBufferBytes: number;
  private readonly logger = new Logger('OnceGateway');
  private readonly connections = new Map<number, GatewayConnection>();
  private readonly bindings = new SessionBindings<GatewayConnection>();
  private readonly flights = new SessionFlights<GatewayConnection>();
  private readonly sessionGuards: CanActivate[] = [new ResumeGuard(), new EpochFenceGuard()];
  private readonly journalWaiters: Array<() => void> = [];
  /** COMMANDs and LOGOUTs past the limit check whose entry is not appended yet (admission runs). */
  private reservedEntries = 0;
  /** REGISTERs journaled but not applied yet (answered NOT_READY if the journal fails). */
  private readonly pendingRegisters = new Set<{ connection: GatewayConnection; frame: Frame }>();
  private readonly registerLimiter: RegisterRateLimiter;
  private readonly sweepTimer: NodeJS.Timeout;
  private nextConnectionId = 1;
  /** The connection the submitter's callback just answered (read by afterApply for the same op). */
  private answered: { op: number; connection: GatewayConnection } | undefined;
  private stopping = false;
  /** Frames whose handling (admission, authentication) is still under way. */
  private inProgress = 0;
  private engineValue: Engine | undefined;
  private unsubscribe: () => void = () => undefined;

  constructor(
    private readonly runtime: OnceRuntime,
    private readonly options: ResolvedGatewayOptions,
    private readonly handlers: HandlerSource,
  ) {
    this.maxWriteBufferBytes = options.maxWriteBufferBytes;
    this.registerLimiter = new RegisterRateLimiter(options.maxFailedRegistersPerAddressPerMinute);
    // The listener may open before the data directory is (a hybrid app starts
    // its microservices before module init): until then PING says not ready
    // and everything else is NOT_READY.
    runtime.whenOpen().then(
      (engine) => {
        this.engineValue = engine;
        const offApplied = engine.onApplied((outcome) => this.afterApply(outcome));
        const offPhase = engine.onPhase((phase) => {
          if (phase === 'failed') this.failInFlight();
        });
        this.unsubscribe = () => {
          offApplied();
          offPhase();
        };
      },
      () => undefined,
    );
    const sweepEveryMs = Math.max(
      10,
      Math.min(1000, options.partialFrameTimeoutMs / 4, options.idleUnboundTimeoutMs / 4),
    );
    this.sweepTimer = setInterval(() => this.sweepSlowPeers(), sweepEveryMs);
    this.sweepTimer.unref();
  }

  /** The engine; only read once `engineValue` is set (handleFrame checks). */
  private get engine(): Engine {
    return this.engineValue!;
  }

  private get commitOp(): number {
    return this.engineValue?.commitOp ?? 0;
  }

  accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const connection = new GatewayConnection(
      this.nextConnectionId++,
      socket,
      this,
      this.options.maxFrameBytes,
    );
    this.connections.set(connection.id, connection);
    this.logger.debug?.(`connection #${connection.id} from ${connection.remote} opened`);
  }

  // ------------------------------------------------------------ frame intake

  handleBadFrame(connection: GatewayConnection, status: number, message: string): void {
    this.logger.warn(
      `connection #${connection.id} from ${connection.remote}: ${STATUS_NAMES[status as Status]}: ${message}; closing`,
    );
    connection.sendAndClose(
      encodeFrame(
        { command: Command.Reply, operation: 0, status, commit: this.commitOp },
        errorBody(STATUS_NAMES[status as Status], message),
      ),
    );
  }

  handleFrame(connection: GatewayConnection, frame: Frame): void | Promise<void> {
    try {
      const parsed = parseRequest(frame);
      if (!parsed.ok) return this.answer(connection, frame, Status.InvalidRequest, parsed.message);
      const request = parsed.request;
      if (request.operation === Operation.Ping) return this.ping(connection, frame);
      if (!this.engineValue || !this.engineValue.ready || this.stopping) {
        const phase = this.stopping ? 'stopping' : (this.engineValue?.phase ?? 'opening');
        return this.answer(
          connection,
          frame,
          Status.NotReady,
          `the node is ${phase}; retry the same frame later`,
        );
      }
      switch (request.operation) {
        case Operation.Register:
          return this.guarded(connection, frame, this.register(connection, frame, request));
        case Operation.Query:
          return this.guarded(connection, frame, this.query(connection, frame, request));
        default:
          return this.guarded(connection, frame, this.replicated(connection, frame, request));
      }
    } catch (error) {
      this.internalError(connection, frame, error);
    }
  }

  /** An unexpected error is a bug of the node, never of the client: logged, answered NOT_READY (retryable). */
  private async guarded(
    connection: GatewayConnection,
    frame: Frame,
    work: Promise<void>,
  ): Promise<void> {
    this.inProgress++;
    try {
      await work;
    } catch (error) {
      this.internalError(connection, frame, error);
    } finally {
      this.inProgress--;
    }
  }

  private internalError(connection: GatewayConnection, frame: Frame, error: unknown): void {
    this.logger.error(
      `connection #${connection.id}: unexpected ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    this.answer(
      connection,
      frame,
      Status.NotReady,
      'the node could not process this request; retry it',
    );
  }

  private ping(connection: GatewayConnection, frame: Frame): void {
    const body = JSON.stringify({
      version: 1,
      commit: this.commitOp,
      ready: this.engineValue?.ready === true && !this.stopping,
    });
    connection.send(
      encodeReplyTo(
        frame,
        { command: Command.Reply, status: Status.Ok, commit: this.commitOp },
        body,
      ),
    );
  }

  // ---------------------------------------------------------------- REGISTER

  private async register(
    connection: GatewayConnection,
    frame: Frame,
    request: Register,
  ): Promise<void> {
    const { client } = frame.header;
    if (this.registerLimiter.blocked(connection.address)) {
      return this.answer(
        connection,
        frame,
        Status.Unauthenticated,
        'too many failed REGISTERs from this address; wait a minute',
      );
    }
    const authenticator = this.runtime.authenticator;
    const userId = authenticator
      ? await authenticator
          .authenticate(request.username, request.password)
          .catch((error: unknown) => {
            this.logger.error(`authenticator failed: ${String(error)}`);
            return undefined;
          })
      : undefined;
    if (userId === undefined) {
      this.registerLimiter.recordFailure(connection.address);
      connection.failedRegisters++;
      this.logger.warn(
        `connection #${connection.id} from ${connection.remote}: REGISTER of client ${client} refused: bad credentials (${connection.failedRegisters} on this connection)`,
      );
      this.answer(
        connection,
        frame,
        Status.Unauthenticated,
        'wrong credentials or a disabled user',
      );
      if (connection.failedRegisters >= this.options.maxFailedRegistersPerConnection)
        connection.end();
      return;
    }
    const owner = this.engine.table.get(client);
    if (owner && owner.userId !== userId) {
      return this.answer(
        connection,
        frame,
        Status.ClientOwnedByOtherUser,
        'this client id belongs to another user’s session',
      );
    }
    if (!this.engine.ready || this.stopping)
      return this.answer(connection, frame, Status.NotReady, 'the node is not ready');
    // Checked and appended in one synchronous step: nothing can take the room between.
    while (!this.hasJournalRoom()) {
      await this.journalRoom();
      if (!this.engine.ready || this.stopping || connection.closed)
        return this.answer(connection, frame, Status.NotReady, 'the node is not ready');
    }
    const pending = { connection, frame };
    this.pendingRegisters.add(pending);
    this.submit(
      connection,
      frame,
      {
        kind: EntryKind.Register,
        client,
        session: 0,
        request: 0,
        userId,
        // Not the body's checksum: the body holds the password, and a fast
        // hash of it on disk could be searched for the password offline. The
        // live reply gets the real one (afterRegister); no REGISTER reply is
        // ever sent from the journal.
        requestChecksum: ZERO_CHECKSUM,
        body: Buffer.alloc(0),
      },
      (outcome) => {
        this.pendingRegisters.delete(pending);
        this.afterRegister(connection, frame, outcome);
      },
      () => this.pendingRegisters.delete(pending),
    );
  }

  private afterRegister(origin: GatewayConnection, request: Frame, outcome: ApplyOutcome): void {
    if (outcome.reply) origin.send(withRequestChecksum(outcome.reply, request.header.checksumBody));
    const registered = outcome.registered;
    if (!registered || origin.closed) return;
    this.bind(origin, {
      client: registered.client,
      epoch: registered.epoch,
      userId: registered.userId,
    });
    this.logger.log(
      `connection #${origin.id} holds client ${registered.client} epoch ${registered.epoch} (user ${registered.userId}, watermark ${registered.watermark}${registered.previousEpoch ? `, resumed from epoch ${registered.previousEpoch}` : ''})`,
    );
  }

  // ------------------------------------------------------- COMMAND and LOGOUT

  private async replicated(
    connection: GatewayConnection,
    frame: Frame,
    request: Replicated,
  ): Promise<void> {
    const { client, session, request: number, checksumBody } = frame.header;
    const pattern = request.operation === Operation.Command ? request.pattern : '';
    let entry: ClientEntry;
    for (;;) {
      const context = new OnceRpcContext(connection, frame, pattern, this);
      const refused = this.runSessionGuards(context);
      if (refused) return this.refuse(connection, frame, refused);
      entry = this.engine.table.get(client)!;
      const highest = this.flights.highestAdmitted(client, session, entry.watermark);
      const check = this.engine.table.check(client, session, number, checksumBody, highest);
      switch (check.kind) {
        case 'duplicate':
          connection.send(check.reply);
          return;
        case 'conflict':
          return this.answer(
            connection,
            frame,
            Status.RequestConflict,
            `request ${number} was used for another body`,
            check.watermark,
          );
        case 'already-applied':
          return this.answer(
            connection,
            frame,
            Status.AlreadyApplied,
            `request ${number} was applied; its reply is no longer cached`,
            check.watermark,
          );
        case 'in-flight': {
          const inFlight = this.flights.inFlight(client, session, number);
          if (inFlight && !inFlight.checksum.equals(checksumBody)) {
            return this.answer(
              connection,
              frame,
              Status.RequestConflict,
              `request ${number} is in flight with another body`,
              entry.watermark,
            );
          }
          return; // Its reply goes to the session's holder when it commits.
        }
        case 'gap':
          return this.answer(
            connection,
            frame,
            Status.RequestGap,
            `the next request number is ${check.nextExpected}`,
            check.watermark,
          );
        case 'invalid-request':
          return this.answer(
            connection,
            frame,
            Status.InvalidRequest,
            'request numbers start at 1',
            entry.watermark,
          );
        case 'no-session':
        case 'session-too-low':
        case 'epoch-ahead':
          // The guards answer these; the table cannot change between them and here (same turn).
          throw new Error(`preflight disagrees with the epoch fence: ${check.kind}`);
        case 'new':
          break;
      }
      if (this.flights.count(client) < this.engine.settings.ring && this.hasJournalRoom()) break;
      // Full: hold this connection (TCP backpressure), then look again from the guards.
      await this.flights.waitForCapacity(client, this.engine.settings.ring);
      await this.journalRoom();
      if (!this.engine.ready || this.stopping || connection.closed) {
        return this.answer(connection, frame, Status.NotReady, 'the node is not ready');
      }
    }

    const binding = connection.binding!;
    const checksum = Buffer.from(checksumBody);
    // Admission is asynchronous: the room stays reserved until the entry is appended.
    this.reservedEntries++;
    try {
      this.flights.admit(client, session, number, request.operation, checksum, connection);
      await this.flights.serialize(client, async () => {
        const body =
          request.operation === Operation.Command
            ? await this.admitCommand(connection, frame, request, binding)
            : Buffer.alloc(0);
        const kind = request.operation === Operation.Command ? EntryKind.Command : EntryKind.Logout;
        this.submit(
          connection,
          frame,
          {
            kind,
            client,
            session,
            request: number,
            userId: binding.userId,
            requestChecksum: checksum,
            body,
          },
          (outcome) => this.afterReplicated(connection, outcome),
          () => {
            const owed = this.flights.inFlight(client, session, number) !== undefined;
            this.flights.settle(client, session, number);
            return owed;
          },
        );
      });
    } finally {
      this.reservedEntries--;
      this.wakeJournalWaiters();
    }
  }

  /**
   * Admission through the NestJS pipeline of the command's handler (guards,
   * interceptors, pipes, filters), then its @Admit step. A refusal on the way
   * is journaled as a committed refusal: the request number stays used and a
   * retry gets the same answer.
   */
  private async admitCommand(
    connection: GatewayConnection,
    frame: Frame,
    request: Extract<ParsedRequest, { operation: Operation.Command }>,
    binding: SessionBinding,
  ): Promise<Buffer> {
    const { pattern, data } = request;
    const admission = { pattern, userId: binding.userId, client: binding.client };
    // The request's own JSON (an object: parseRequest said so) is journaled as sent.
    const rawBody = frame.body;
    const handler = this.handlers.getHandlerByPattern(pattern);
    if (
      !handler ||
      (handler.extras as Record<string, unknown> | undefined)?.[ONCE_PATTERN_KIND] !== 'command'
    ) {
      // Not a command here: journaled as sent, apply answers UNKNOWN_PATTERN.
      return this.engine.prepareCommand(pattern, data, admission, rawBody);
    }
    let payload: unknown;
    try {
      const context = new OnceRpcContext(connection, frame, pattern, this);
      const value = await this.runHandler(handler, data, context);
      // The stub hands the ticket to the context; an interceptor that mapped
      // the pipeline's value cannot lose it.
      const ticket = context.admission ?? (value instanceof AdmissionTicket ? value : undefined);
      if (!ticket) {
        return refusalBody(
          pattern,
          'ADMISSION_REFUSED',
          'the command was not admitted: an interceptor answered in its place',
        );
      }
      payload = ticket.payload === RAW_PAYLOAD ? data : ticket.payload;
      if (ticket.keyed) {
        payload = {
          ...(typeof payload === 'object' && payload !== null ? payload : {}),
          ...ticket.keyed,
        };
      }
    } catch (error) {
      const { code, message } = toRefusal(error, 'ADMISSION_REFUSED');
      return refusalBody(pattern, code, message);
    }
    return this.engine.prepareCommand(
      pattern,
      payload,
      admission,
      payload === data ? rawBody : undefined,
    );
  }

  private afterReplicated(origin: GatewayConnection, outcome: ApplyOutcome): void {
    const { entry } = outcome;
    this.flights.settle(entry.client, entry.session, entry.request);
    if (!outcome.reply) return;
    const target = this.replyTarget(entry.client, entry.session, origin);
    if (!target) return; // Nobody holds the session now: a retry gets the cached reply.
    target.send(outcome.reply);
    this.answered = { op: entry.op, connection: target };
    if (outcome.eviction !== undefined) this.unbind(target, false);
  }

  /** The connection bound to (client, epoch) now: the holder, else the origin if it still is. */
  private replyTarget(
    client: ClientId,
    epoch: number,
    origin: GatewayConnection,
  ): GatewayConnection | undefined {
    const holder = this.bindings.holder(client);
    if (holder && holder.binding?.epoch === epoch) return holder;
    if (!origin.closed && origin.binding?.client === client && origin.binding.epoch === epoch)
      return origin;
    return undefined;
  }

  // ------------------------------------------------------------------- QUERY

  private async query(connection: GatewayConnection, frame: Frame, request: Query): Promise<void> {
    const context = new OnceRpcContext(connection, frame, request.pattern, this);
    if (!connection.binding) return this.refuse(connection, frame, new NotBoundException());
    const refused = this.runSessionGuards(context);
    if (refused) return this.refuse(connection, frame, refused);
    const watermark = this.engine.table.get(frame.header.client)?.watermark ?? 0;
    const handler = this.handlers.getHandlerByPattern(request.pattern);
    let body: Buffer;
    if (
      !handler ||
      (handler.extras as Record<string, unknown> | undefined)?.[ONCE_PATTERN_KIND] === 'command'
    ) {
      body = errorBody('UNKNOWN_PATTERN', `no query handler for pattern "${request.pattern}"`);
    } else {
      try {
        const result = (await this.runHandler(handler, request.data, context)) ?? null;
        body = okBody(result);
      } catch (error) {
        const { code, message } = toRefusal(error, 'QUERY_FAILED');
        body = errorBody(code, message);
      }
    }
    connection.send(
      encodeReplyTo(
        frame,
        { command: Command.Reply, status: Status.Ok, commit: this.engine.commitOp, watermark },
        body,
      ),
    );
  }

  /** Runs a NestJS message handler (its whole pipeline) and takes its last value. */
  private async runHandler(
    handler: MessageHandler,
    data: unknown,
    context: OnceRpcContext,
  ): Promise<unknown> {
    const returned: unknown = await handler(data, context);
    // Without interceptors NestJS has already run the handler: a command's stub
    // has handed over its ticket and there is nothing to subscribe to.
    if (context.admission && !isObservable(returned)) return returned;
    return lastValueFrom(this.handlers.transformToObservable<unknown>(returned), {
      defaultValue: undefined,
    });
  }

  // ------------------------------------------------------------- guards, binding

  /** Runs the built-in session guards in order; returns the refusal, if any. */
  private runSessionGuards(context: OnceRpcContext): GatewayException | undefined {
    const host = new ExecutionContextHost([context.getFrame().body, context]);
    host.setType('rpc');
    try {
      for (const guard of this.sessionGuards) {
        if (guard.canActivate(host) !== true) return new NotBoundException();
      }
      return undefined;
    } catch (error) {
      if (error instanceof GatewayException) return error;
      throw error;
    }
  }

  private refuse(connection: GatewayConnection, frame: Frame, refusal: GatewayException): void {
    if (refusal instanceof SessionEvictedException) {
      connection.send(
        encodeReplyTo(frame, {
          command: Command.Eviction,
          status: refusal.reason,
          commit: this.engine.commitOp,
          watermark: refusal.watermark,
        }),
      );
      this.unbind(connection, false);
      return;
    }
    if (refusal instanceof EpochAheadException) {
      return this.answer(connection, frame, Status.EpochAhead, refusal.message, refusal.watermark);
    }
    if (refusal instanceof InvalidRequestException) {
      return this.answer(connection, frame, Status.InvalidRequest, refusal.detail);
    }
    return this.answer(connection, frame, Status.NotBound, refusal.message);
  }

  tableEntry(client: ClientId): ClientEntry | undefined {
    return this.engine.table.get(client);
  }

  goneReason(client: ClientId): number {
    return this.engine.goneReason(client);
  }

  verifyResumeToken(client: ClientId, session: number, token: Uint8Array): boolean {
    return verifyResumeToken(this.engine.journal.nodeSecret, client, session, token);
  }

  bindResumed(connectionId: number, binding: SessionBinding): void {
    const connection = this.connections.get(connectionId);
    if (!connection) return;
    const previous = this.bindings.holder(binding.client);
    if (previous && previous !== connection) {
      previous.send(
        this.unaskedEviction(
          binding.client,
          previous.binding?.epoch ?? 0,
          EvictionReason.Superseded,
        ),
      );
      this.unbind(previous, true);
      this.logger.log(
        `connection #${previous.id} superseded: client ${binding.client} resumed on connection #${connectionId}`,
      );
    }
    this.bind(connection, binding);
    this.logger.log(
      `connection #${connectionId} resumed client ${binding.client} epoch ${binding.epoch} with its token`,
    );
  }

  private bind(connection: GatewayConnection, binding: SessionBinding): void {
    if (connection.binding) this.unbind(connection, connection.binding.client !== binding.client);
    this.bindings.bind(connection, binding);
  }

  /**
   * Unbinds `connection`. With `release`, if it held its session, what the
   * session held while this connection lived is released by a journaled
   * entry — queued behind the session's admissions still on their way to the
   * journal, so a command sent just before the connection ended is released too.
   */
  private unbind(connection: GatewayConnection, release: boolean): void {
    const { binding, wasHolder } = this.bindings.unbind(connection);
    if (binding && wasHolder && release) this.journalRelease(binding.client);
  }

  /** An EVICTION no request asked for: the session a connection held ended or moved. */
  private unaskedEviction(
    client: ClientId,
    epoch: number,
    reason: EvictionReason,
    commit = this.engine.commitOp,
  ): Buffer {
    return encodeFrame({
      command: Command.Eviction,
      operation: 0,
      status: reason,
      client,
      session: epoch,
      commit,
      watermark: this.engine.table.get(client)?.watermark ?? 0,
    });
  }

  private journalRelease(client: ClientId): void {
    void this.flights.serialize(client, () => {
      if (!this.engine.ready) return; // At the next boot, the BOOT entry releases everything.
      try {
        this.engine.submitRelease(client);
      } catch (error) {
        this.logger.warn(`release of client ${client} not journaled: ${String(error)}`);
      }
    });
  }

  handleClose(connection: GatewayConnection): void {
    this.connections.delete(connection.id);
    const client = connection.binding?.client;
    this.unbind(connection, true);
    this.logger.debug?.(
      `connection #${connection.id} closed${client ? ` (client ${client})` : ''}`,
    );
  }

  /** Sessions that ended at apply: their holders are told (EVICTED, LOGGED_OUT, EXPIRED) and unbound. */
  private afterApply(outcome: ApplyOutcome): void {
    // Runs right after the submitter's callback for the same outcome.
    if (outcome.endedSessions.length > 0) {
      const replyTarget =
        this.answered?.op === outcome.entry.op ? this.answered.connection : undefined;
      for (const ended of outcome.endedSessions) this.endSession(ended, outcome, replyTarget);
    }
    this.wakeJournalWaiters();
  }

  /**
   * Every connection still bound to the ended session is told why (EVICTED,
   * LOGGED_OUT, EXPIRED) and unbound, except the one a LOGOUT reply answers.
   * The engine already released what the session held.
   */
  private endSession(
    ended: EndedSession,
    outcome: ApplyOutcome,
    replyTarget: GatewayConnection | undefined,
  ): void {
    for (const connection of this.bindings.boundTo(ended.client)) {
      if (connection !== replyTarget) {
        connection.send(
          encodeFrame({
            command: Command.Eviction,
            operation: 0,
            status: ended.reason,
            client: ended.client,
            session: connection.binding?.epoch ?? ended.epoch,
            commit: outcome.entry.op,
            watermark: ended.watermark,
          }),
        );
      }
      this.bindings.unbind(connection);
    }
  }

  // ----------------------------------------------------------------- helpers

  /**
   * Journals `draft`. When the node cannot take writes (its journal failed),
   * the request is answered NOT_READY — unless the failure already answered
   * it (`onRefused` returns false then).
   */
  private submit(
    connection: GatewayConnection,
    frame: Frame,
    draft: Parameters<Engine['submit']>[0],
    onOutcome: (outcome: ApplyOutcome) => void,
    onRefused: () => boolean,
  ): void {
    try {
      this.engine.submit(draft, onOutcome);
    } catch (error) {
      if (!(error instanceof EngineUnavailableError)) throw error;
      if (onRefused()) this.answer(connection, frame, Status.NotReady, JOURNAL_FAILED_MESSAGE);
    }
  }

  /**
   * Room for one more entry under `maxPendingEntries`, counting the entries
   * not yet durable and those admitted but not yet appended. Whoever sees
   * room must take it in the same synchronous step (append, or reserve).
   */
  private hasJournalRoom(): boolean {
    return this.engine.journal.pendingCount + this.reservedEntries < this.options.maxPendingEntries;
  }

  /** Resolves when there may be room again; the caller looks again (others may take it first). */
  private journalRoom(): Promise<void> {
    if (this.hasJournalRoom()) return Promise.resolve();
    return new Promise((resolve) => this.journalWaiters.push(resolve));
  }

  private wakeJournalWaiters(): void {
    if (this.journalWaiters.length > 0 && this.hasJournalRoom()) {
      for (const wake of this.journalWaiters.splice(0)) wake();
    }
  }

  /** A REPLY with a non-OK status (or OK for PING), echoing the request. */
  private answer(
    connection: GatewayConnection,
    frame: Frame,
    status: Status,
    message: string,
    watermark = 0,
  ): void {
    connection.send(
      encodeReplyTo(
        frame,
        { command: Command.Reply, status, commit: this.engine.commitOp, watermark },
        errorBody(STATUS_NAMES[status], message),
      ),
    );
  }

  /**
   * The journal failed (fail-stop): nothing admitted will commit. Every
   * request in flight is answered NOT_READY — never OK — so its client
   * retries it once the node is back (after a restart the entry is not in the
   * journal, so the retry applies it once).
   */
  private failInFlight(): void {
    for (const [client, inFlight] of this.flights.all()) {
      const target = this.replyTarget(client, inFlight.epoch, inFlight.origin);
      target?.send(
        encodeFrame(
          {
            command: Command.Reply,
            operation: inFlight.operation,
            status: Status.NotReady,
            client,
            session: inFlight.epoch,
            request: inFlight.request,
            resumeToken: inFlight.checksum,
            commit: this.commitOp,
          },
          errorBody('NOT_READY', JOURNAL_FAILED_MESSAGE),
        ),
      );
    }
    this.flights.clear();
    for (const { connection, frame } of this.pendingRegisters) {
      this.answer(connection, frame, Status.NotReady, JOURNAL_FAILED_MESSAGE);
    }
    this.pendingRegisters.clear();
    for (const wake of this.journalWaiters.splice(0)) wake();
  }

  /** Closes connections that hold an incomplete frame too long, or idle without a session. */
  private sweepSlowPeers(): void {
    const now = Date.now();
    for (const connection of this.connections.values()) {
      if (
        connection.partialSinceMs > 0 &&
        now - connection.partialSinceMs > this.options.partialFrameTimeoutMs
      ) {
        this.logger.warn(
          `connection #${connection.id} from ${connection.remote}: incomplete frame held too long; closing`,
        );
        connection.failPartialFrame(
          `incomplete frame: not finished within ${this.options.partialFrameTimeoutMs} ms`,
          Status.BadFrame,
        );
      } else if (
        !connection.binding &&
        now - connection.lastActivityMs > this.options.idleUnboundTimeoutMs
      ) {
        this.logger.debug?.(
          `connection #${connection.id} from ${connection.remote}: idle without a session; closing`,
        );
        connection.end();
      }
    }
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
    clearInterval(this.sweepTimer);
    this.unsubscribe();
  }
}

const JOURNAL_FAILED_MESSAGE =
  'the node stopped: its journal cannot write; retry after it restarts';

function refusalBody(pattern: string, code: string, message: string): Buffer {
  return encodeCommandBody({ pattern, refusal: { code, message } });
}

/** A NestJS pipeline error (after exception filters) as a refusal code and message. */
function toRefusal(error: unknown, fallbackCode: string): { code: string; message: string } {
  if (typeof error === 'object' && error !== null) {
    const { code, message, status } = error as {
      code?: unknown;
      message?: unknown;
      status?: unknown;
    };
    const text = typeof message === 'string' ? message : JSON.stringify(error);
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return { code, message: text };
    if (status === 'error' && message === 'Forbidden resource')
      return { code: 'FORBIDDEN', message: text };
    return { code: fallbackCode, message: text };
  }
  return { code: fallbackCode, message: String(error) };
}
