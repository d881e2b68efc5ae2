import { Subject } from 'rxjs';
import {
  Command,
  EVICTION_REASON_NAMES,
  type EvictionReason,
  type Frame,
  Operation,
  randomClientId,
  Status,
} from '@once/protocol';
import { Backoff } from './backoff';
import { ClientClosedError } from './errors/client-closed.error';
import { ConnectError } from './errors/connect.error';
import { evictionError, replyMessage, statusError } from './errors/error-mapping';
import { IdentityFileWriteError } from './errors/identity-file-write.error';
import { InvalidReplyError } from './errors/invalid-reply.error';
import { LeaderNotTrustedError } from './errors/leader-not-trusted.error';
import { NotReadyError } from './errors/not-ready.error';
import { OnceError } from './errors/once.error';
import { OutcomeUnknownError } from './errors/outcome-unknown.error';
import { RequestTimeoutError } from './errors/request-timeout.error';
import { sdkAssert } from './errors/sdk-assert';
import { SessionEvictedError } from './errors/session-evicted.error';
import { type IdentityPersister } from './identity-persister';
import { distrustOf } from './leader-trust';
import { describeAnswer, type NodeAnswer } from './node-answer';
import { type NodeAddress, formatNodeAddress, sameNodeAddress } from './node-address';
import { type LinkHandler, NodeLink } from './node-link';
import { NodeRotation } from './node-rotation';
import { type OnceClientEvent, type WaitReason } from './once-client-event';
import { type ResolvedOptions } from './once-client-options';
import { leaderHintOf } from './not-ready-reply';
import { CommandEntry, type QueryEntry, type Settler } from './pending-request';
import { leaderOf } from './ping-reply';
import { parseRegistration } from './registration-reply';
import { commandOutcome, queryOutcome, type ReplyOutcome } from './reply-outcome';
import { pingFrame, queryFrame, registerFrame, replicatedFrame } from './request-frames';
import { type RequestPipeline } from './request-pipeline';
import { type SessionIdentity } from './session-identity';
import { WaitLog } from './wait-log';

/** Why an attempt on a node failed, for the `waiting` event and the errors that end a wait. */
interface AttemptFailure {
  readonly reason: WaitReason;
  /** What the node answered, when it answered NOT_READY. */
  readonly answer?: NodeAnswer;
  /** A trusted leader hint to follow next. */
  readonly follow?: NodeAddress;
}

/**
 * Where the connection stands:
 * - `down`: no link (a reconnect may be scheduled);
 * - `connecting`: a TCP connect is under way;
 * - `binding`: connected, waiting for the answer that binds the session,
 *   either to the oldest unanswered command sent with the resume token
 *   (`token`), or to a REGISTER (`register`);
 * - `bound`: commands and queries flow;
 * - `stopped`: closed or failed for good.
 */
type LinkState =
  | { readonly kind: 'down' }
  | { readonly kind: 'connecting' }
  | {
      readonly kind: 'binding';
      readonly link: NodeLink;
      readonly via: 'token';
      readonly request: number;
    }
  | { readonly kind: 'binding'; readonly link: NodeLink; readonly via: 'register' }
  | { readonly kind: 'bound'; readonly link: NodeLink }
  | { readonly kind: 'stopped' };

/**
 * The session state machine of a client: connects, binds (implicit rebind with
 * the resume token first, REGISTER when that is refused or impossible),
 * numbers and sends commands, routes answers to their requests, reconnects
 * (to the next node, with backoff per round: {@link NodeRotation}), and turns
 * a lost session into "outcome unknown" for exactly the commands in doubt.
 *
 * Invariants:
 * - a command is written to a link only once its number is durable (identity
 *   file written, when one is kept), and in number order on every link;
 * - a numbered command is never renumbered while its client id stands; it is
 *   resent under its original number and body, only ever to the session it was
 *   numbered in;
 * - after a lost session no command sent under it is sent again: in-doubt ones
 *   fail with OutcomeUnknownError, never-sent ones move to a fresh client id;
 * - frames of any link but the current one are ignored;
 * - which node a link goes to never changes a request's number or body: the
 *   session lives in the client table every node serves, so a command in
 *   doubt on one node is settled by resending it to another.
 */
export class SessionDriver implements LinkHandler {
  readonly events = new Subject<OnceClientEvent>();
  /** Set by `close()`: no new requests are taken; what is pending still completes. */
  closing = false;
  /** A LOGOUT committed: the session is gone, and so is any reason to keep the identity file. */
  loggedOut = false;
  /**
   * A REGISTER of the current session was sent and not answered: the node may
   * have moved the epoch past the one this client knows, so the token would be
   * fenced. The next bind REGISTERs instead. Persisted as `registering`.
   */
  registerInDoubt: boolean;

  private state: LinkState = { kind: 'down' };
  /** Which node the next attempt goes to, and after what delay. */
  private readonly rotation: NodeRotation;
  /**
   * Why each attempt of the current round failed (the error, and its message
   * naming the node), for the error of a first connect that failed.
   */
  private roundFailures: { readonly error: OnceError; readonly message: string }[] = [];
  /** The last NOT_READY answer since the last bind: kept by the error that ends the wait. */
  private lastAnswer: NodeAnswer | undefined;
  /** The log lines of the reconnect loop, rate-limited. */
  private readonly waitLog: WaitLog;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private handshakeTimer: NodeJS.Timeout | undefined;
  private pumpScheduled = false;
  private starting: { resolve(): void; reject(error: unknown): void } | undefined;
  private logoutEntry: CommandEntry | undefined;
  private drainWaiters: Array<() => void> = [];
  private fatalError: OnceError | undefined;

  constructor(
    private readonly options: ResolvedOptions,
    readonly identity: SessionIdentity,
    readonly pipeline: RequestPipeline,
    private readonly persister: IdentityPersister | undefined,
    registering: boolean,
    random: () => number = Math.random,
  ) {
    this.registerInDoubt = registering;
    this.rotation = new NodeRotation(options.nodes, new Backoff(options.reconnect, random));
    this.waitLog = new WaitLog(options.logger);
    const onEvent = options.onEvent;
    if (onEvent) {
      this.events.subscribe((event) => {
        try {
          onEvent(event);
        } catch {
          // The caller's callback: its failure is not the session's.
        }
      });
    }
  }

  /** The node the session is bound on; undefined while no connection is bound. */
  get node(): NodeAddress | undefined {
    return this.state.kind === 'bound' ? this.rotation.current : undefined;
  }

  /** Every node known: the configured ones, then those learnt from PING replies. */
  get nodes(): readonly NodeAddress[] {
    return this.rotation.nodes;
  }

  get stopped(): boolean {
    return this.state.kind === 'stopped';
  }

  /** Why the client stopped, when it failed rather than closed. */
  get failure(): OnceError | undefined {
    return this.fatalError;
  }

  // ----------------------------------------------------------------- lifecycle

  /**
   * The first connection: resolves once a session is bound. Transport failures
   * and definite refusals (UNAUTHENTICATED, ...) reject; NOT_READY is retried.
   */
  start(): Promise<void> {
    sdkAssert(this.state.kind === 'down' && !this.starting, 'start() runs once');
    return new Promise((resolve, reject) => {
      this.starting = { resolve, reject };
      this.openLink();
    });
  }

  /** Takes a new command; it is numbered and sent when a session is bound and the pipeline has room. */
  submit(entry: CommandEntry): void {
    this.pipeline.enqueue(entry);
    this.schedulePump();
  }

  submitQuery(query: QueryEntry): void {
    this.pipeline.addQuery(query);
    this.sendReady();
  }

  /** `requestTimeoutMs` elapsed for `entry`: withdrawn if never numbered, else left to be answered. */
  timeOut(entry: CommandEntry, timeoutMs: number): void {
    const withdrawn = this.pipeline.withdraw(entry);
    entry.reject(
      new RequestTimeoutError(entry.pattern, timeoutMs, withdrawn ? undefined : entry.request),
    );
    this.checkDrained();
  }

  timeOutQuery(query: QueryEntry, timeoutMs: number): void {
    this.pipeline.withdrawQuery(query);
    query.reject(new RequestTimeoutError(query.pattern, timeoutMs, undefined));
    this.checkDrained();
  }

  /** Resolves when nothing is pending (or the client stopped), or after `timeoutMs` (0: no bound). */
  whenIdle(timeoutMs: number): Promise<void> {
    if (this.pipeline.isEmpty || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          this.drainWaiters = this.drainWaiters.filter((waiter) => waiter !== done);
          resolve();
        }, timeoutMs);
      }
      this.drainWaiters.push(done);
    });
  }

  /**
   * Gives up on everything still pending (close): never-numbered commands and
   * queries fail with ClientClosedError; numbered, unanswered commands fail
   * with OutcomeUnknownError (CLIENT_CLOSED) but stay in the pipeline, so the
   * identity file keeps them for a later process to settle.
   */
  abandon(): void {
    const closed = new ClientClosedError('the client was closed before this request was sent');
    for (const entry of this.pipeline.takeUnnumbered()) entry.reject(closed);
    for (const query of this.pipeline.takeQueries()) query.reject(closed);
    for (const entry of this.pipeline.unanswered()) {
      entry.reject(new OutcomeUnknownError(entry.request, entry.pattern, 'CLIENT_CLOSED'));
    }
    this.checkDrained();
  }

  /**
   * Sends LOGOUT under the next request number, after every command numbered
   * before it, and resolves when it committed (the session is gone).
   */
  logout(timeoutMs: number): Promise<void> {
    if (this.stopped) return Promise.reject(this.fatalError ?? new ClientClosedError());
    if (!this.identity.hasSession && this.pipeline.inFlightCount === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const entry = new CommandEntry('logout', 'LOGOUT', Buffer.alloc(0), {
        resolve: () => resolve(),
        reject,
      });
      if (timeoutMs > 0) {
        entry.timer = setTimeout(
          () =>
            entry.reject(new RequestTimeoutError('LOGOUT', timeoutMs, entry.request || undefined)),
          timeoutMs,
        );
      }
      this.logoutEntry = entry;
      this.schedulePump();
    });
  }

  /**
   * Stops for good: no reconnects, the link closes, `events` completes. The
   * identity file gets a last write (or is removed after a logout) unless
   * `persist` is false (a connect that failed leaves the file as it found it).
   */
  async shutdown(persist = true): Promise<void> {
    this.enterStopped();
    if (!this.persister || !persist) return;
    if (this.loggedOut) await this.persister.remove();
    else await this.persister.flush();
  }

  // ------------------------------------------------------------ connecting

  private openLink(): void {
    if (this.stopped) return;
    this.state = { kind: 'connecting' };
    const { host, port } = this.rotation.current;
    const { connectTimeoutMs, tls } = this.options;
    NodeLink.open(host, port, connectTimeoutMs, this, tls).then(
      (link) => {
        if (this.state.kind !== 'connecting') {
          link.destroy();
          return;
        }
        this.beginBind(link);
      },
      (error: unknown) => {
        if (this.state.kind !== 'connecting') return;
        this.state = { kind: 'down' };
        const reason = `cannot connect to ${formatNodeAddress({ host, port })}: ${describe(error)}`;
        this.nodeFailed(new ConnectError(reason, { cause: error }), { reason: 'no-connection' });
      },
    );
  }

  /**
   * Binds the new link: with the resume token when there is a session, no
   * REGISTER in doubt, and a command to carry it (the oldest unanswered one);
   * by REGISTER otherwise (a connection must be bound for queries too). With
   * `learnNodes`, a PING goes first: its reply may name the cluster's leader,
   * worth knowing even when this node then answers NOT_READY.
   */
  private beginBind(link: NodeLink): void {
    if (this.options.learnNodes) link.write(pingFrame(this.identity));
    this.handshakeTimer = setTimeout(() => {
      this.handshakeTimer = undefined;
      if (this.currentLink() !== link || this.state.kind !== 'binding') return;
      this.linkLost(
        link,
        `no session bound within ${this.options.connectTimeoutMs} ms`,
        new ConnectError(`no session bound within ${this.options.connectTimeoutMs} ms`),
      );
    }, this.options.connectTimeoutMs);
    const oldest = this.pipeline.oldest();
    if (this.identity.hasSession && !this.registerInDoubt && oldest) {
      this.state = { kind: 'binding', link, via: 'token', request: oldest.request };
      this.sendReady();
    } else {
      void this.register(link);
    }
  }

  private async register(link: NodeLink): Promise<void> {
    this.state = { kind: 'binding', link, via: 'register' };
    if (this.identity.hasSession) {
      // The file must say "REGISTER in doubt" before the REGISTER can move the epoch.
      this.registerInDoubt = true;
      if (this.persister) {
        try {
          await this.persister.flush();
        } catch (error) {
          this.fail(new IdentityFileWriteError(this.persister.path, { cause: error }));
          return;
        }
        if (this.currentLink() !== link || this.state.kind !== 'binding') return;
      }
    }
    link.write(registerFrame(this.identity, this.options.username, this.options.password));
  }

  private bound(link: NodeLink, event: OnceClientEvent): void {
    this.clearHandshakeTimer();
    this.state = { kind: 'bound', link };
    this.rotation.succeeded();
    this.roundFailures = [];
    this.lastAnswer = undefined;
    const { host, port } = this.rotation.current;
    this.waitLog.bound(formatNodeAddress({ host, port }));
    this.events.next({ type: 'node', host, port });
    this.events.next(event);
    const starting = this.starting;
    this.starting = undefined;
    starting?.resolve();
    this.sendReady();
    this.schedulePump();
  }

  // --------------------------------------------------------------- sending

  private schedulePump(): void {
    if (this.pumpScheduled || this.stopped) return;
    this.pumpScheduled = true;
    // One turn later: every command() of this turn is numbered, persisted and sent as one batch.
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Numbers what the pipeline has room for, persists the numbers (when kept), then sends. */
  private pump(): void {
    if (this.state.kind !== 'bound') return;
    const assign = () => this.identity.assignRequest();
    const durable = this.persister === undefined;
    const numbered = this.pipeline.numberNext(assign, durable);
    const logout = this.logoutEntry;
    if (
      logout &&
      logout.request === 0 &&
      !logout.done &&
      this.pipeline.queuedCount === 0 &&
      this.pipeline.waitingCount === 0
    ) {
      this.pipeline.numberLast(logout, assign, durable);
      numbered.push(logout);
    }
    if (numbered.length > 0 && this.persister) {
      const persister = this.persister;
      persister.flush().then(
        () => {
          for (const entry of numbered) {
            if (this.pipeline.get(entry.request) === entry) entry.durable = true;
          }
          this.sendReady();
        },
        (error: unknown) => this.fail(new IdentityFileWriteError(persister.path, { cause: error })),
      );
    }
    this.sendReady();
  }

  /**
   * Writes what may go now: while binding by token, only the oldest
   * unanswered command; once bound, every durable unsent command in number
   * order, then every pending query.
   */
  private sendReady(): void {
    const state = this.state;
    if (state.kind === 'binding' && state.via === 'token') {
      const [first] = this.pipeline.sendable(state.link, 1);
      if (first?.request === state.request) this.writeCommand(state.link, first);
      return;
    }
    if (state.kind !== 'bound') return;
    for (const entry of this.pipeline.sendable(state.link)) this.writeCommand(state.link, entry);
    for (const query of this.pipeline.takeQueriesToSend()) {
      state.link.write(queryFrame(this.identity, query.body));
    }
  }

  private writeCommand(link: NodeLink, entry: CommandEntry): void {
    sdkAssert(entry.durable && entry.request > 0, 'only durable numbered commands are sent');
    entry.sentOn = link;
    entry.everSent = true;
    const operation = entry.kind === 'logout' ? Operation.Logout : Operation.Command;
    link.write(replicatedFrame(this.identity, operation, entry.request, entry.body));
  }

  // --------------------------------------------------------------- receiving

  onFrame(link: NodeLink, frame: Frame): void {
    if (link !== this.currentLink()) return;
    try {
      this.dispatch(link, frame);
    } catch (error) {
      // An assertion of this side failed: stop rather than act on a state that cannot be trusted.
      this.fail(
        error instanceof OnceError
          ? error
          : new InvalidReplyError(`cannot process a frame: ${describe(error)}`),
      );
    }
  }

  private dispatch(link: NodeLink, frame: Frame): void {
    const { header } = frame;
    if (header.command === (Command.Eviction as number)) {
      this.onEviction(link, frame);
      return;
    }
    if (header.command !== (Command.Reply as number)) {
      this.protocolViolation(link, `a frame with command ${header.command}`);
      return;
    }
    switch (header.operation as Operation) {
      case Operation.Register:
        this.onRegisterReply(link, frame);
        return;
      case Operation.Command:
      case Operation.Logout:
        this.onReplicatedReply(link, frame);
        return;
      case Operation.Query:
        this.onQueryReply(link, frame);
        return;
      case Operation.Ping:
        this.onPingReply(link, frame);
        return;
      default:
        if (
          header.status === (Status.BadFrame as number) ||
          header.status === (Status.VersionUnsupported as number)
        ) {
          // The node could not read a frame of ours: a bug on this side; retrying would repeat it.
          this.fail(
            statusError(header.status, replyMessage(frame.body, 'the node refused a frame')),
          );
          return;
        }
        this.protocolViolation(link, `a reply to operation ${header.operation}`);
    }
  }

  onClosed(link: NodeLink, error: Error | undefined): void {
    if (link !== this.currentLink()) return;
    const reason = error?.message ?? 'the connection closed';
    this.linkLost(link, reason, new ConnectError(reason, { cause: error }));
  }

  private onRegisterReply(link: NodeLink, frame: Frame): void {
    const state = this.state;
    if (state.kind !== 'binding' || state.via !== 'register') {
      this.protocolViolation(link, 'a REGISTER reply nobody asked for');
      return;
    }
    const { header } = frame;
    if (header.client !== this.identity.clientId) {
      this.protocolViolation(link, `a REGISTER reply for client ${header.client}`);
      return;
    }
    if (header.status !== (Status.Ok as number)) {
      this.registerInDoubt = false; // refused before anything was journaled
      const error = statusError(header.status, replyMessage(frame.body, 'REGISTER refused'));
      if (header.status === (Status.NotReady as number)) {
        this.retryLater(link, frame.body);
      } else if (
        header.status === (Status.ClientOwnedByOtherUser as number) &&
        (this.identity.hasSession || this.pipeline.inFlightCount > 0)
      ) {
        this.sessionLost('CLIENT_OWNED_BY_OTHER_USER', error);
      } else {
        this.fail(error);
      }
      return;
    }
    const registration = parseRegistration(frame);
    if (!registration) {
      this.protocolViolation(link, 'a REGISTER reply without its fields');
      return;
    }
    this.registerInDoubt = false;
    const hasUnanswered = this.pipeline.inFlightCount > 0;
    const resumed = this.identity.hasSession;
    if (!this.identity.isContinuedBy(registration, hasUnanswered)) {
      // A different entry under this client id: the session this client held is gone.
      this.sessionLost('SESSION_RESET', undefined);
      return;
    }
    this.identity.bind(registration, hasUnanswered);
    // The epoch moved: every unanswered command goes again, same number, same body.
    this.pipeline.markAllUnsent();
    this.persister?.schedule();
    const { clientId, epoch } = this.identity;
    this.bound(
      link,
      resumed
        ? { type: 'resumed', how: 'register', clientId, epoch }
        : { type: 'connected', clientId, epoch },
    );
  }

  private onReplicatedReply(link: NodeLink, frame: Frame): void {
    const { header } = frame;
    if (header.client !== this.identity.clientId) return; // for a client id this client left
    const state = this.state;
    if (state.kind === 'binding' && state.via === 'token' && header.request === state.request) {
      if (header.status === (Status.NotBound as number)) {
        // The token did not verify: resume by REGISTER on this same connection.
        void this.register(link);
        return;
      }
      if (header.status === (Status.NotReady as number)) {
        this.retryLater(link, frame.body);
        return;
      }
      // Any other answer: the resume guard bound the connection before the request was looked at.
      const { clientId, epoch } = this.identity;
      this.bound(link, { type: 'resumed', how: 'token', clientId, epoch });
    }
    if (header.status === (Status.NotBound as number)) {
      if (this.state.kind === 'bound') this.rebind(link);
      return;
    }
    if (header.status === (Status.NotReady as number)) {
      if (this.state.kind === 'bound') this.retryLater(link, frame.body);
      return;
    }
    const entry = this.pipeline.get(header.request);
    if (!entry) return; // already settled: the answer to a resend of it
    if (
      header.status === (Status.Ok as number) ||
      header.status === (Status.AlreadyApplied as number)
    ) {
      this.identity.observeWatermark(header.watermark);
    }
    if (entry.kind === 'logout' && header.status === (Status.Ok as number)) {
      this.loggedOut = true;
      entry.resolve(undefined);
    } else {
      settle(entry, commandOutcome(frame, entry.pattern));
    }
    this.pipeline.settle(header.request);
    this.persister?.schedule();
    this.schedulePump();
    this.checkDrained();
  }

  private onQueryReply(link: NodeLink, frame: Frame): void {
    const { header } = frame;
    if (this.state.kind !== 'bound') return;
    const query = this.pipeline.shiftSentQuery();
    if (!query) {
      this.protocolViolation(link, 'a QUERY reply nobody asked for');
      return;
    }
    if (header.status === (Status.NotBound as number)) {
      this.pipeline.requeueQuery(query);
      this.rebind(link);
      return;
    }
    if (header.status === (Status.NotReady as number)) {
      this.pipeline.requeueQuery(query);
      this.retryLater(link, frame.body);
      return;
    }
    settle(query, queryOutcome(frame, query.pattern));
    this.checkDrained();
  }

  /**
   * A PING reply (sent when learning nodes): its `leader`, if any, joins the
   * node list when the client may trust it (`trustLeaderHints`).
   */
  private onPingReply(link: NodeLink, frame: Frame): void {
    if (frame.header.status !== (Status.Ok as number)) return;
    const leader = leaderOf(frame.body);
    if (leader && this.distrust(leader, link) === undefined) this.rotation.learn(leader);
  }

  /**
   * Why the client does not follow `leader`, named over `link`, or
   * `undefined` when it does (see `trustLeaderHints`). A learnt address was
   * trusted when it was learnt, under the same policy. A TLS link counts as
   * verified only when verification is also required of the next connection
   * (`rejectUnauthorized` not false), so that following the hint keeps it.
   */
  private distrust(leader: NodeAddress, link: NodeLink): string | undefined {
    const { tls, trustLeaderHints } = this.options;
    return distrustOf(trustLeaderHints, {
      known: this.rotation.isKnown(leader),
      verified: tls?.rejectUnauthorized !== false && link.verified,
      tls: tls !== undefined,
    });
  }

  private onEviction(link: NodeLink, frame: Frame): void {
    const { header } = frame;
    if (header.client !== this.identity.clientId) return;
    if (header.session !== 0 && header.session < this.identity.epoch) return; // about an epoch already left
    const error = evictionError(header.status);
    if (!(error instanceof SessionEvictedError)) {
      this.protocolViolation(link, error.message);
      return;
    }
    this.sessionLost(EVICTION_REASON_NAMES[header.status as EvictionReason], error);
  }

  // ------------------------------------------------------- losing and failing

  /**
   * The session is over. Every command sent under it fails with
   * OutcomeUnknownError (never resent: PROTOCOL.md forbids it); a LOGOUT in
   * doubt counts as done. Commands never sent move to a fresh client id.
   */
  private sessionLost(reason: string, cause: unknown): void {
    const previous = this.identity.clientId;
    const inDoubt = this.pipeline.takeInDoubt();
    this.pipeline.requeueSentQueries();
    for (const entry of inDoubt) {
      if (entry.kind === 'logout') entry.resolve(undefined);
      else entry.reject(new OutcomeUnknownError(entry.request, entry.pattern, reason, { cause }));
    }
    if (this.logoutEntry) {
      this.loggedOut = true;
      this.logoutEntry.resolve(undefined);
    }
    this.registerInDoubt = false;
    this.identity.reset(randomClientId());
    this.persister?.schedule();
    this.events.next({
      type: 'session-lost',
      reason,
      clientId: previous,
      requests: inDoubt.filter((entry) => entry.kind === 'command').map((entry) => entry.request),
    });
    const link = this.currentLink();
    this.clearHandshakeTimer();
    link?.destroy();
    this.state = { kind: 'down' };
    this.checkDrained();
    if (this.closing && this.pipeline.isEmpty) return; // nothing left that needs a session
    this.openLink();
  }

  /** The node unbound this connection without an eviction: REGISTER again on it. */
  private rebind(link: NodeLink): void {
    this.pipeline.markAllUnsent();
    this.pipeline.requeueSentQueries();
    void this.register(link);
  }

  /**
   * NOT_READY: the node replays, stops, or (in a cluster) is a follower. Not a
   * failure of any request: drop the link and send the same frames to the next
   * node (this one again after a backoff delay, when it is the only one). A
   * follower's reply may name its leader (`error.leader`): the next attempt
   * then goes there at once ({@link NodeRotation.redirected}) when the client
   * may trust the address (`trustLeaderHints`); an address it may not trust
   * is never connected to, and the answer is kept for the error that says so.
   */
  private retryLater(link: NodeLink, body: Uint8Array): void {
    const current = this.rotation.current;
    const hint = leaderHintOf(body);
    const other = hint && !sameNodeAddress(hint, current) ? hint : undefined;
    const answer: NodeAnswer = {
      node: formatNodeAddress(current),
      status: 'NOT_READY',
      role: other ? 'follower' : 'none',
      leader: hint && formatNodeAddress(hint),
    };
    this.lastAnswer = answer;
    const why = other && this.distrust(other, link);
    if (other && why) {
      const error = new LeaderNotTrustedError(
        { ...answer, leader: formatNodeAddress(other) },
        this.options.trustLeaderHints,
        why,
      );
      this.dropLink(link, error.message);
      this.nodeFailed(error, { reason: 'leader-not-trusted', answer });
      return;
    }
    const reason = describeAnswer(answer);
    this.dropLink(link, reason);
    this.nodeFailed(new NotReadyError(reason), { reason: 'not-ready', answer, follow: hint });
  }

  private linkLost(link: NodeLink, reason: string, error: OnceError): void {
    this.dropLink(link, reason);
    this.nodeFailed(error, { reason: 'no-connection' });
  }

  private dropLink(link: NodeLink, reason: string): void {
    this.clearHandshakeTimer();
    link.destroy();
    this.state = { kind: 'down' };
    this.pipeline.markAllUnsent();
    this.pipeline.requeueSentQueries();
    this.events.next({ type: 'disconnected', reason });
  }

  private protocolViolation(link: NodeLink, what: string): void {
    this.linkLost(link, `the node sent ${what}`, new InvalidReplyError(`the node sent ${what}`));
  }

  /**
   * The attempt on the current node failed, or its bound link dropped: go on
   * to the next node (the trusted leader a NOT_READY named, if any), at once
   * inside a round, after the backoff delay when a new round starts. The
   * first connect gives up when its round ends with no node bound and a
   * follower naming a leader the client does not trust (LeaderNotTrustedError:
   * retrying would never reach it), or with none answering NOT_READY; later,
   * `reconnect.attemptsMax` bounds the rounds. Every wait is reported: a
   * `waiting` event, and a rate-limited log line.
   */
  private nodeFailed(error: OnceError, failure: AttemptFailure): void {
    if (this.stopped) return;
    const where = formatNodeAddress(this.rotation.current);
    const message = error.message.includes(where) ? error.message : `${where}: ${error.message}`;
    this.roundFailures.push({ error, message });
    const notReady = failure.reason !== 'no-connection';
    const next = failure.follow
      ? this.rotation.redirected(failure.follow)
      : this.rotation.failed(notReady);
    if (next.newRound) {
      const failures = this.roundFailures;
      this.roundFailures = [];
      const untrusted = failures
        .map((failed) => failed.error)
        .reverse()
        .find((failed) => failed instanceof LeaderNotTrustedError);
      if (this.starting && untrusted) {
        this.fail(untrusted);
        return;
      }
      if (this.starting && !next.notReadyInLastRound) {
        this.fail(failures.length > 1 ? noNodeBound(failures, error) : error);
        return;
      }
      const { attemptsMax } = this.options.reconnect;
      if (next.round > attemptsMax) {
        this.fail(this.gaveUp(attemptsMax, message, error));
        return;
      }
      const leader = failure.answer?.leader;
      const waiting = {
        type: 'waiting',
        reason: failure.reason,
        node: where,
        leader,
        attempt: next.round,
        delayMs: next.delayMs,
        message,
      } as const;
      this.waitLog.waiting(waiting);
      this.events.next(waiting);
      this.events.next({ type: 'reconnecting', attempt: next.round, delayMs: next.delayMs });
    }
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.openLink();
    }, next.delayMs);
  }

  /**
   * The error of `attemptsMax` rounds with no bind: the last failure, and the
   * last answer a node gave (where the client was sent, or why not), so that
   * it is not lost behind "no session bound".
   */
  private gaveUp(attemptsMax: number, last: string, cause: OnceError): ConnectError {
    const answer = this.lastAnswer;
    const told = answer ? describeAnswer(answer) : undefined;
    const tail = told && !last.startsWith(told) ? `; the last answer: ${told}` : '';
    return new ConnectError(
      `no session bound after ${attemptsMax} reconnect attempts; the last: ${last}${tail}`,
      { cause, lastAnswer: answer },
    );
  }

  /**
   * A failure the client cannot recover from (bad credentials, no connection
   * after every attempt, an identity file that cannot be written): everything
   * pending fails, in-doubt commands with OutcomeUnknownError (they stay in
   * the identity file), and the client stops.
   */
  private fail(error: OnceError): void {
    if (this.stopped) return;
    this.fatalError = error;
    for (const entry of this.pipeline.takeUnnumbered()) entry.reject(error);
    for (const query of this.pipeline.takeQueries()) query.reject(error);
    for (const entry of this.pipeline.unanswered()) {
      entry.reject(
        new OutcomeUnknownError(entry.request, entry.pattern, error.code, { cause: error }),
      );
    }
    this.logoutEntry?.reject(error);
    const starting = this.starting;
    this.starting = undefined;
    if (starting) starting.reject(error);
    else this.waitLog.stopped(error.message);
    // No write here: the file already holds every command still in doubt.
    this.enterStopped();
  }

  /** Stops the client with `error` (an identity file write that failed in the background). */
  failWith(error: OnceError): void {
    this.fail(error);
  }

  private enterStopped(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.clearHandshakeTimer();
    this.currentLink()?.destroy();
    if (this.state.kind !== 'stopped') {
      this.state = { kind: 'stopped' };
      this.events.complete();
    }
    this.checkDrained();
  }

  // ----------------------------------------------------------------- helpers

  private currentLink(): NodeLink | undefined {
    const state = this.state;
    return state.kind === 'binding' || state.kind === 'bound' ? state.link : undefined;
  }

  private clearHandshakeTimer(): void {
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
  }

  private checkDrained(): void {
    if (this.drainWaiters.length === 0) return;
    if (!this.pipeline.isEmpty && !this.stopped) return;
    for (const waiter of this.drainWaiters.splice(0)) waiter();
  }
}

/** The error of a first connect whose round over several nodes bound nothing. */
function noNodeBound(
  failures: readonly { readonly message: string }[],
  last: OnceError,
): ConnectError {
  const messages = failures.map((failed) => failed.message);
  return new ConnectError(
    `no session bound on any of ${failures.length} nodes: ${messages.join('; ')}`,
    { cause: last },
  );
}

/** Settles `request` with `outcome`. */
function settle(request: Settler, outcome: ReplyOutcome): void {
  if (outcome.ok) request.resolve(outcome.result);
  else request.reject(outcome.error);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
