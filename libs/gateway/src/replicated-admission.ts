import { type MessageHandler } from '@nestjs/microservices';
import {
  type AdmissionContext,
  GatewayException,
  NotBoundException,
  type OnceRpcContext,
  type SessionBinding,
} from '@once/framework';
import {
  type ApplyOutcome,
  type CommandBody,
  EngineRefusal,
  encodeCommandBody,
  requestGapMessage,
} from '@once/engine/internal';
import { EngineUnavailableError } from '@once/engine';
import {
  AdmissionTicket,
  RAW_PAYLOAD,
  fenceRefusal,
  fenceVerdict,
  resumeVerdict,
} from '@once/framework/internal';
import { EntryKind, InvalidEntryError } from '@once/journal';
import { type EntryDraft } from '@once/journal/internal';
import { type Frame, Operation, Status } from '@once/protocol';
import { type ParsedRequest, ZERO_CHECKSUM } from '@once/protocol/internal';
import { type AdmissionHost } from './admission-host';
import { JOURNAL_FAILED_MESSAGE, inFlightNotReady } from './gateway-answers';
import { type GatewayConnection } from './gateway-connection';
import { type HandlerPipeline, type Refusal, refusalOf } from './handler-pipeline';
import { type JournalRoom } from './journal-room';
import { QUERY_PATTERN_CODE, queryPatternMessage } from './pattern-catalogue';
import { type ReplyRouter } from './reply-router';
import { answeringChecksum } from './request-checksum';
import { type InFlightRequest, type SessionFlights } from './session-flights';
import { unknownPatternMessage } from './unknown-pattern-message';

type Replicated = Extract<ParsedRequest, { operation: Operation.Command | Operation.Logout }>;
type CommandRequest = Extract<ParsedRequest, { operation: Operation.Command }>;

/**
 * What the preflight of a COMMAND or LOGOUT decided, against the client
 * table and the session's requests in flight (PROTOCOL.md's COMMAND table):
 * - `refused`: a session rule says no (NOT_BOUND, EVICTION, EPOCH_AHEAD, INVALID_REQUEST);
 * - `resume`: bind the connection by its token, then look again;
 * - `answer`: answered without journaling, from the table (duplicate, conflict, gap, …)
 *   or for a body larger than the journal stores in one entry;
 * - `in-flight`: the same request is in flight; its reply goes to the holder when it commits;
 * - `full`: the session's ring or the journal is full: wait for `room`, then look again;
 * - `admit`: journal it.
 */
export type Preflight =
  | { readonly kind: 'refused'; readonly refusal: GatewayException }
  | { readonly kind: 'resume'; readonly binding: SessionBinding }
  | {
      readonly kind: 'answer';
      readonly status: Status;
      readonly message: string;
      readonly watermark: number;
    }
  | { readonly kind: 'duplicate'; readonly reply: Buffer }
  | { readonly kind: 'in-flight' }
  | { readonly kind: 'full'; readonly room: Promise<void> }
  | { readonly kind: 'admit' };

/** The verdicts that carry nothing but their kind: one object each, never changed. */
const ADMIT: Preflight = Object.freeze({ kind: 'admit' });
const IN_FLIGHT: Preflight = Object.freeze({ kind: 'in-flight' });

/**
 * COMMAND and LOGOUT: the preflight, then the admission under one
 * reservation (a place in the session's ring and in the journal) that every
 * exit releases unless the entry reached the journal, whose outcome then
 * settles it.
 *
 * Invariant: a session's requests reach the journal in request order, at
 * most `ring` in flight; nothing a client sends is journaled before it
 * passed the checks that PROTOCOL.md answers without journaling.
 */
export class ReplicatedAdmission {
  constructor(
    private readonly host: AdmissionHost,
    private readonly flights: SessionFlights<GatewayConnection>,
    private readonly room: JournalRoom,
    private readonly pipeline: HandlerPipeline,
    private readonly router: ReplyRouter,
  ) {}

  /** Pure but for reading the table and the flights: decides, changes nothing. */
  preflight(context: OnceRpcContext): Preflight {
    const facts = context.sessionFacts();
    const resume = resumeVerdict(facts);
    if (resume.kind === 'not-bound') return { kind: 'refused', refusal: new NotBoundException() };
    if (resume.kind === 'resume') return resume;
    const fence = fenceVerdict(facts);
    if (fence.kind !== 'pass') return { kind: 'refused', refusal: fenceRefusal(fence) };
    const { client, session, request, checksumBody } = context.getHeader();
    const { table, settings } = this.host.engine;
    const watermark = facts.entry!.watermark;
    const highest = this.flights.highestAdmitted(client, session, watermark);
    const check = table.check(client, session, request, checksumBody, highest);
    switch (check.kind) {
      case 'duplicate':
        return { kind: 'duplicate', reply: answeringChecksum(check.reply, checksumBody) };
      case 'conflict':
        return answer(
          Status.RequestConflict,
          `request ${request} was used for another body`,
          check.watermark,
        );
      case 'already-applied':
        return answer(
          Status.AlreadyApplied,
          `request ${request} was applied; its reply is no longer cached`,
          check.watermark,
        );
      case 'in-flight': {
        const inFlight = this.flights.inFlight(client, session, request);
        if (inFlight && !inFlight.checksum.equals(checksumBody)) {
          return answer(
            Status.RequestConflict,
            `request ${request} is in flight with another body`,
            watermark,
          );
        }
        return IN_FLIGHT;
      }
      case 'gap':
        return answer(Status.RequestGap, requestGapMessage(check.nextExpected), check.watermark);
      case 'invalid-request':
        return answer(Status.InvalidRequest, 'request numbers start at 1', watermark);
      case 'no-session':
      case 'session-too-low':
      case 'epoch-ahead':
        // fenceVerdict answered these from the same entry, in the same turn.
        throw new Error(`preflight disagrees with the epoch fence: ${check.kind}`);
      case 'new':
        break;
    }
    const oversized = this.oversizedBody(context.getFrame().body.byteLength);
    if (oversized) return answer(Status.InvalidRequest, oversized, watermark);
    if (this.flights.count(client) >= settings.ring) {
      return { kind: 'full', room: this.flights.waitForCapacity(client, settings.ring) };
    }
    if (!this.room.has()) return { kind: 'full', room: this.room.wait() };
    return ADMIT;
  }

  /**
   * Admits a request the preflight said `admit` to, in the same turn: it is
   * in flight from now on (a retry waits for its outcome), its admission
   * runs (a command's NestJS pipeline) behind the session's earlier ones,
   * and its entry is appended. Whatever admission reserved is released on
   * every exit that appends nothing.
   *
   * When the session has nothing queued and its admission needs no await
   * (a bare admission of a command without an @Admit step, or a LOGOUT),
   * the entry is appended now and the refusal, if any, returned as a value:
   * the same entry, in the same place of the session's order, as through
   * the session's queue, without a promise per step.
   */
  admit(
    connection: GatewayConnection,
    frame: Frame,
    request: Replicated,
    context: OnceRpcContext,
  ): AdmitResult | Promise<AdmitResult> {
    const { client, session, request: number, checksumBody } = frame.header;
    const binding = connection.binding!;
    const checksum = Buffer.from(checksumBody);
    this.room.take();
    this.flights.admit(client, session, number, request.operation, checksum, connection);
    if (!this.flights.claimTurn(client)) {
      return this.flights
        .serialize(client, () =>
          this.admitInTurn(connection, frame, request, context, checksum, binding),
        )
        .then(
          (appended) => this.release(frame, appended),
          (error: unknown) => this.releaseAndThrow(frame, error),
        );
    }
    let appended: Appended | Promise<Appended>;
    try {
      appended = this.admitInTurn(connection, frame, request, context, checksum, binding);
    } catch (error) {
      this.flights.endTurn(client);
      return this.releaseAndThrow(frame, error);
    }
    if (!(appended instanceof Promise)) {
      this.flights.endTurn(client);
      return this.release(frame, appended);
    }
    return appended.then(
      (settled) => {
        this.flights.endTurn(client);
        return this.release(frame, settled);
      },
      (error: unknown) => {
        this.flights.endTurn(client);
        return this.releaseAndThrow(frame, error);
      },
    );
  }

  /**
   * The admission itself, in the session's turn: the entry body (a
   * command's pipeline and @Admit step), then the append. `binding` is the
   * connection's when the request was admitted.
   */
  private admitInTurn(
    connection: GatewayConnection,
    frame: Frame,
    request: Replicated,
    context: OnceRpcContext,
    checksum: Buffer,
    binding: SessionBinding,
  ): Appended | Promise<Appended> {
    if (request.operation !== Operation.Command) {
      return this.appendAdmitted(connection, frame, EntryKind.Logout, binding, checksum, {
        body: Buffer.alloc(0),
      });
    }
    const handler = this.pipeline.handlerFor(request.pattern, 'command');
    const journaled =
      handler && this.secretBody(handler, request.pattern) ? ZERO_CHECKSUM : checksum;
    const admitted = this.admitCommand(request, handler, binding, context);
    if (admitted instanceof Promise) {
      return admitted.then((body) =>
        this.appendAdmitted(connection, frame, EntryKind.Command, binding, journaled, body),
      );
    }
    return this.appendAdmitted(connection, frame, EntryKind.Command, binding, journaled, admitted);
  }

  /**
   * Whether `handler`'s command declared a secret body (`@Admit(…,
   * { secretBody: true })`): then its entry keeps no checksum of the body
   * the client sent (ZERO_CHECKSUM), as a REGISTER's keeps none, since a
   * fast hash of a body that holds a password can be searched for it
   * offline.
   */
  private secretBody(handler: MessageHandler, pattern: string): boolean {
    const route = this.pipeline.routeOf(handler) ?? pattern;
    return this.host.engine.commands.get(route)?.secretBody === true;
  }

  /** Appends what admission gave, unless it is a session guard's refusal (returned). */
  private appendAdmitted(
    connection: GatewayConnection,
    frame: Frame,
    kind: EntryKind.Command | EntryKind.Logout,
    binding: SessionBinding,
    checksum: Buffer,
    admitted: AdmittedBody | GatewayException,
  ): Appended {
    if (admitted instanceof GatewayException) return admitted;
    const { client, session, request } = frame.header;
    const draft = {
      kind,
      client,
      session,
      request,
      userId: binding.userId,
      requestChecksum: checksum,
      body: admitted.body,
    };
    return this.append(connection, frame, draft, admitted.decoded);
  }

  /**
   * An admission ended: unless its entry reached the journal (whose outcome
   * then settles it), the request is no longer in flight; its journal room
   * is given back either way. Returns the session guard's refusal, if any.
   */
  private release(frame: Frame, appended: Appended): AdmitResult {
    if (appended !== true)
      this.flights.settle(frame.header.client, frame.header.session, frame.header.request);
    this.room.release();
    return appended instanceof GatewayException ? appended : undefined;
  }

  /** An admission failed unexpectedly: what it holds is released, the failure goes on. */
  private releaseAndThrow(frame: Frame, error: unknown): never {
    this.release(frame, false);
    throw error;
  }

  /**
   * Why a request body of `bodyBytes` is refused, when it is larger than the
   * journal stores in one entry (its `entryBodyBytesMax`: in cluster mode
   * what one NATS message carries, which can be less than a frame). The
   * refusal is INVALID_REQUEST, not a BAD_FRAME of the frame limit: see
   * PROTOCOL-NOTES.md, "A body larger than the journal's entry".
   */
  private oversizedBody(bodyBytes: number, cause = 'the request makes'): string | undefined {
    const bodyBytesMax = this.host.engine.journal.entryBodyBytesMax;
    if (bodyBytesMax === undefined || bodyBytes <= bodyBytesMax) return undefined;
    return `${cause} a journal entry body of ${bodyBytes} bytes, more than the ${bodyBytesMax} this node's journal stores in one entry; send a smaller request`;
  }

  /**
   * Appends; false when the node takes no writes (answered NOT_READY then)
   * or the journal refuses the entry. A body over the journal's entry limit
   * was refused by the preflight; one that admission made larger (an @Admit
   * step, pipes) is refused here alike, INVALID_REQUEST: a retry would be
   * refused the same way, so it is not invited.
   */
  private append(
    connection: GatewayConnection,
    frame: Frame,
    draft: EntryDraft,
    decoded: CommandBody | undefined,
  ): boolean {
    try {
      this.host.engine.submit(draft, undefined, undefined, decoded);
      return true;
    } catch (error) {
      if (error instanceof InvalidEntryError) {
        this.host.logger.warn(
          `client ${draft.client} request ${draft.request} refused by the journal: ${error.message}`,
        );
        const message =
          this.oversizedBody(draft.body.byteLength, 'its admission made') ??
          'the request makes a journal entry this node cannot store; send another';
        this.host.answer(connection, frame, Status.InvalidRequest, message);
        return false;
      }
      if (!(error instanceof EngineUnavailableError)) throw error;
      // Unless the failure already answered it (failInFlight cleared its flight).
      if (this.flights.inFlight(draft.client, draft.session, draft.request)) {
        this.host.answer(connection, frame, Status.NotReady, JOURNAL_FAILED_MESSAGE);
      }
      return false;
    }
  }

  /**
   * Admission through the NestJS pipeline of the command's handler
   * (`handler`: the one registered for the pattern, if any), then its @Admit
   * step: the entry body to journal. A refusal on the way is journaled as a
   * committed refusal (the request number stays used and a retry gets
   * the same answer), except a session guard's, which is returned unjournaled.
   * A value, not a promise, when nothing on the way awaits (a bare admission,
   * no @Admit step).
   */
  private admitCommand(
    request: CommandRequest,
    handler: MessageHandler | undefined,
    binding: SessionBinding,
    context: OnceRpcContext,
  ): Admitted | Promise<Admitted> {
    const { data } = request;
    // An object pattern is journaled under the route its handler answers to.
    const pattern = (handler && this.pipeline.routeOf(handler)) ?? request.pattern;
    const admission = { pattern, userId: binding.userId, client: binding.client };
    // The request's own JSON (an object: parseRequest said so) is journaled as sent.
    const rawBody = pattern === request.pattern ? context.getFrame().body : undefined;
    if (!handler) {
      // A @Query sent as a COMMAND: a committed refusal saying so (replay reads it from the body).
      if (this.pipeline.handlerFor(request.pattern, 'query')) {
        return refusalBody(pattern, {
          code: QUERY_PATTERN_CODE,
          message: queryPatternMessage(pattern),
        });
      }
      // Not a command of this code, nor a retired one: a committed refusal
      // that keeps none of what the client sent beyond a pattern's prefix
      // (no 1 MiB body kept for a request that changed nothing).
      if (this.unknownEverywhere(pattern)) return refusalBody(...unknownPattern(pattern));
      // Retired (or known only to the engine): journaled as sent, apply answers for it.
      return this.prepared(pattern, data, admission, rawBody, false);
    }
    const bare = this.pipeline.bareAdmission(handler);
    let value: unknown;
    try {
      if (!bare) {
        return this.pipeline.run(handler, data, context).then(
          (ran) => this.afterPipeline(ran, request, pattern, context, rawBody, false, admission),
          (error: unknown) => this.pipelineRefusal(error, context, pattern),
        );
      }
      value = bare.run(data, context);
    } catch (error) {
      return this.pipelineRefusal(error, context, pattern);
    }
    return this.afterPipeline(value, request, pattern, context, rawBody, true, admission);
  }

  /** No handler in the engine for `pattern`, and not retired: apply could only answer UNKNOWN_PATTERN. */
  private unknownEverywhere(pattern: string): boolean {
    const { commands } = this.host.engine;
    return commands.get(pattern) === undefined && !commands.retired.has(pattern);
  }

  /** The pipeline's value (`bare`: of a bare admission): the ticket, then the entry body. */
  private afterPipeline(
    value: unknown,
    request: CommandRequest,
    pattern: string,
    context: OnceRpcContext,
    rawBody: Buffer | undefined,
    bare: boolean,
    admission: AdmissionContext,
  ): Admitted | Promise<Admitted> {
    const { data } = request;
    let payload: unknown;
    try {
      // The stub hands the ticket to the context; an interceptor that mapped
      // the pipeline's value cannot lose it.
      const ticket = context.admission ?? (value instanceof AdmissionTicket ? value : undefined);
      if (!ticket) {
        return refusalBody(pattern, {
          code: 'ADMISSION_REFUSED',
          message: 'the command was not admitted: an interceptor answered in its place',
        });
      }
      payload = ticketPayload(ticket, data);
    } catch (error) {
      return this.pipelineRefusal(error, context, pattern);
    }
    const asSent = payload === data ? rawBody : undefined;
    return this.prepared(pattern, payload, admission, asSent, bare && data === payload);
  }

  /**
   * The entry body of `payload`: at once without an @Admit step, else once
   * it ran. `seenByNoOne`: journaled as sent and seen by no team code (no
   * pipeline, no @Admit step), so `payload` is what decoding the journaled
   * bytes gives, and apply need not parse them again.
   */
  private prepared(
    pattern: string,
    payload: unknown,
    admission: AdmissionContext,
    asSent: Buffer | undefined,
    seenByNoOne: boolean,
  ): Admitted | Promise<Admitted> {
    const { engine } = this.host;
    const body = engine.prepareCommandAtOnce(pattern, payload, asSent);
    if (body === undefined) {
      return engine.prepareCommand(pattern, payload, admission, asSent).then(bodyOnly);
    }
    const decoded =
      seenByNoOne && asSent !== undefined && body === asSent
        ? { pattern, data: payload }
        : undefined;
    return { body, decoded };
  }

  /** A pipeline's failure: a session guard's refusal as such, any other a committed refusal. */
  private pipelineRefusal(error: unknown, context: OnceRpcContext, pattern: string): Admitted {
    if (context.sessionRefusal) return context.sessionRefusal;
    const failureLog = this.pipeline.failureLog;
    return refusalBody(pattern, refusalOf(error, context, 'ADMISSION_REFUSED', failureLog));
  }

  /**
   * A COMMAND or LOGOUT applied: its place in the ring is free. Returns what
   * was in flight (the connection it came on, when it was admitted).
   */
  settle(outcome: ApplyOutcome): InFlightRequest<GatewayConnection> | undefined {
    const { entry } = outcome;
    if (entry.kind !== EntryKind.Command && entry.kind !== EntryKind.Logout) return undefined;
    return this.flights.settle(entry.client, entry.session, entry.request);
  }

  /**
   * The journal failed (fail-stop): nothing admitted will commit. Every
   * request in flight is answered NOT_READY, never OK, so its client retries
   * it once the node is back (the entry is not in the journal then).
   */
  failInFlight(commit: number): void {
    for (const [client, inFlight] of this.flights.all()) {
      const target = this.router.target(client, inFlight.epoch, inFlight.origin);
      target?.send(inFlightNotReady({ client, ...inFlight }, JOURNAL_FAILED_MESSAGE, commit));
    }
    this.flights.clear();
  }
}

function answer(status: Status, message: string, watermark: number): Preflight {
  return { kind: 'answer', status, message, watermark };
}

/** A COMMAND's entry body, and what decoding it gives when admission already knows (see `Engine.submit`). */
interface AdmittedBody {
  readonly body: Buffer;
  readonly decoded?: CommandBody;
}

/** What admission gives: an entry body, or a session guard's refusal (journaled nothing). */
type Admitted = AdmittedBody | GatewayException;

/** Whether the entry reached the journal, or the session guard's refusal. */
type Appended = boolean | GatewayException;

/** What {@link ReplicatedAdmission.admit} ends with: a session guard's refusal, or nothing. */
export type AdmitResult = GatewayException | undefined;

/** How much of an unknown pattern its refusal keeps (and names). */
const UNKNOWN_PATTERN_CHARS_KEPT = 200;

/**
 * The committed refusal of a COMMAND whose pattern nothing handles: the
 * reply apply would give (UNKNOWN_PATTERN), without the request's data, and
 * with at most {@link UNKNOWN_PATTERN_CHARS_KEPT} characters of the pattern.
 */
function unknownPattern(pattern: string): [string, Refusal] {
  const kept =
    pattern.length <= UNKNOWN_PATTERN_CHARS_KEPT
      ? pattern
      : `${pattern.slice(0, UNKNOWN_PATTERN_CHARS_KEPT)}…`;
  return [
    kept,
    { code: EngineRefusal.UnknownPattern, message: unknownPatternMessage('command', kept) },
  ];
}

function bodyOnly(body: Buffer): AdmittedBody {
  return { body };
}

function refusalBody(pattern: string, refusal: Refusal): AdmittedBody {
  return { body: encodeCommandBody({ pattern, refusal }) };
}

/** What the pipeline's pipes made of the data: the whole payload, and keyed replacements. */
function ticketPayload(ticket: AdmissionTicket, data: unknown): unknown {
  const payload = ticket.payload === RAW_PAYLOAD ? data : ticket.payload;
  if (!ticket.keyed) return payload;
  return { ...(typeof payload === 'object' && payload !== null ? payload : {}), ...ticket.keyed };
}
