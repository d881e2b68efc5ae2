import { Logger } from '@nestjs/common';
import {
  ClientProxy,
  type MsPattern,
  type ReadPacket,
  type WritePacket,
} from '@nestjs/microservices';
import {
  CommandRefusedError,
  OnceClient,
  type OnceClientEvent,
  type OnceClientOptions,
} from '@once/sdk';
import { type Observable, type Subscription } from 'rxjs';
import { nestErrorOf } from './nest-error';
import { type OnceClientProxyOptions, splitProxyOptions } from './once-client-proxy-options';
import {
  type KnownPatterns,
  type PatternRoute,
  knownPatterns,
  legacyQueryName,
  routeOf,
} from './pattern-route';
import { QueryEmitError } from './proxy-errors';
import { type OnceClientProxyEvents, ProxyListeners } from './proxy-listeners';

/** `client.status` values: the same two as NestJS's TCP client. */
export type OnceClientStatus = 'connected' | 'disconnected';

/** One OnceClient of the proxy, with what the proxy learnt about its connection. */
interface LiveClient {
  readonly client: OnceClient;
  subscription: Subscription | undefined;
  /** A session is bound now. */
  linked: boolean;
  /** The node's catalogue, fetched once per bind; `undefined` inside when the node has none. */
  patterns: Promise<KnownPatterns | undefined> | undefined;
}

/**
 * The once SDK as a NestJS `ClientProxy`, keeping NestJS's TCP client contract:
 *
 * ```ts
 * ClientsModule.register([
 *   { name: 'LEDGER', customClass: OnceClientProxy, options: { port: 7700, username, password } },
 * ])
 * …
 * this.ledger.send('ledger.deposit', { account, amount }) // exactly once, across reconnects and node crashes
 * ```
 *
 * Options are the SDK's (`OnceClientOptions`), passed through as they are:
 * `nodes: [{ host, port }, …]` in place of `host`/`port` lets the client fail
 * over between the nodes of a cluster. The SDK's `logger` defaults to a NestJS
 * `Logger` (context `OnceClientProxy`): what a reconnect loop waits for (a
 * node not ready, a leader the client does not trust) is logged there.
 *
 * - Patterns are normalised as NestJS does (`{ cmd: 'sum' }` is sent as
 *   `{"cmd":"sum"}`). A pattern the node's catalogue lists as a `@Query` is
 *   sent as a QUERY; every other one as a COMMAND, applied exactly once.
 * - `send` emits the result and completes. A refusal errors with the
 *   RpcException's error object when the handler threw one (as over TCP),
 *   else with `CommandRefusedError` (its `code` is the handler's); a request
 *   whose outcome cannot be known errors with `OutcomeUnknownError`; a
 *   connect that failed with `ProxyConnectError`, whose `code` is the
 *   socket's (`ECONNREFUSED`, ...) as over TCP, and `onceCode` once's.
 * - `emit` is exactly-once too: it completes when the command committed (the
 *   handler's result is not emitted, as over TCP). A `@Query` cannot be
 *   emitted ({@link QueryEmitError}).
 * - `status` emits 'connected' when a session is bound and 'disconnected'
 *   when the connection drops or closes; `on('connect' | 'close' | 'error')`.
 * - Connecting is lazy and retried by the next call after a failure, as over
 *   TCP: a connect that failed, or an SDK client that gave up reconnecting,
 *   is replaced by a new one on the next `send`/`emit`/`connect`.
 *
 * A subscription cannot cancel a command: once sent it is settled with the
 * node whether or not anyone still listens.
 */
export class OnceClientProxy extends ClientProxy<OnceClientProxyEvents> {
  private live: LiveClient | undefined;
  private connecting: Promise<LiveClient> | undefined;
  private readonly listeners = new ProxyListeners();
  private readonly sdkOptions: OnceClientOptions;
  private readonly queries: ReadonlySet<string>;

  constructor(options: OnceClientProxyOptions) {
    super();
    const { sdk, queries } = splitProxyOptions(options);
    this.sdkOptions = { ...sdk, logger: sdk.logger ?? new Logger(OnceClientProxy.name) };
    this.queries = new Set(queries.map((pattern) => this.normalizePattern(pattern)));
  }

  /**
   * 'connected' when a session is bound, 'disconnected' when the connection
   * drops, a connect fails or the client closes; the latest is replayed to a
   * new subscriber, repeats are not emitted (as NestJS's TCP client does).
   */
  override get status(): Observable<OnceClientStatus> {
    return super.status as Observable<OnceClientStatus>;
  }

  /** Connects when there is no usable client: none yet, or one that stopped (closed or gave up). */
  async connect(): Promise<OnceClient> {
    return (await this.ensureLive()).client;
  }

  async close(): Promise<void> {
    await this.connecting?.catch(() => undefined);
    const live = this.live;
    this.live = undefined;
    // Completing its events reports the close ('close', status 'disconnected').
    await live?.client.close();
  }

  /**
   * Adds a listener of 'connect', 'close' or 'error' (see
   * {@link OnceClientProxyEvents}) for the proxy's whole life; any other
   * event throws UnsupportedEventError (code EVENT_UNSUPPORTED).
   */
  override on<
    EventKey extends keyof OnceClientProxyEvents,
    EventCallback extends OnceClientProxyEvents[EventKey],
  >(event: EventKey, callback: EventCallback): void {
    this.listeners.add(event, callback);
  }

  unwrap<T>(): T {
    if (!this.live) throw new Error('OnceClientProxy is not connected; call connect() first');
    return this.live.client as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    this.run(packet, 'send').then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
    return () => undefined;
  }

  /**
   * Journals the event as a COMMAND; resolves (with nothing, as over TCP)
   * once it committed, so `emit` completes only when it is applied.
   */
  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    await this.run(packet, 'emit');
    return undefined as T;
  }

  private async run(packet: ReadPacket, kind: 'send' | 'emit'): Promise<unknown> {
    const live = await this.ensureLive();
    const { name, query } = await this.route(live, packet.pattern);
    if (query && kind === 'emit') throw new QueryEmitError(name);
    try {
      return await (query
        ? live.client.query(name, packet.data)
        : live.client.command(name, packet.data));
    } catch (error) {
      throw nestErrorOf(error);
    }
  }

  // ------------------------------------------------------------- connecting

  private ensureLive(): Promise<LiveClient> {
    const live = this.live;
    if (live && !live.client.stopped) return Promise.resolve(live);
    this.connecting ??= this.open(live).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * A new OnceClient. One that stopped is closed first, so that its identity
   * file is written for the last time before the new client reads it (and
   * resumes its session). Its in-doubt commands have already failed with
   * OutcomeUnknownError; with an identity file the new client resends them
   * under their numbers and reports them in `recovered`.
   */
  private async open(previous: LiveClient | undefined): Promise<LiveClient> {
    if (previous) {
      this.live = undefined;
      previous.subscription?.unsubscribe();
      await previous.client.close().catch(() => undefined);
    }
    let client: OnceClient;
    try {
      client = await OnceClient.connect(this.sdkOptions);
    } catch (error) {
      const failed = nestErrorOf(error);
      // As a TCP socket whose connect failed: status, 'error', then 'close'.
      this.setStatus('disconnected');
      this.listeners.emit('error', failed as Error);
      this.listeners.emit('close');
      throw failed;
    }
    const live: LiveClient = {
      client,
      subscription: undefined,
      linked: false,
      patterns: undefined,
    };
    this.live = live;
    // The first bind happened before connect() resolved; its event is not replayed.
    this.linkUp(live);
    live.subscription = client.events$.subscribe({
      next: (event) => this.onEvent(live, event),
      complete: () => this.onStopped(live),
    });
    this.prefetchPatterns(live);
    return live;
  }

  private onEvent(live: LiveClient, event: OnceClientEvent): void {
    switch (event.type) {
      case 'connected':
      case 'resumed':
        // Another node process may serve other handlers now: ask again.
        live.patterns = undefined;
        this.linkUp(live);
        this.prefetchPatterns(live);
        return;
      case 'disconnected':
      case 'session-lost':
        this.linkDown(live);
        return;
      case 'node':
      case 'waiting':
      case 'reconnecting':
        return;
    }
  }

  private onStopped(live: LiveClient): void {
    this.linkDown(live);
    const failure = live.client.failure;
    if (failure) this.listeners.emit('error', nestErrorOf(failure) as Error);
  }

  private setStatus(status: OnceClientStatus): void {
    this._status$.next(status);
  }

  private linkUp(live: LiveClient): void {
    live.linked = true;
    this.setStatus('connected');
    this.listeners.emit('connect');
  }

  private linkDown(live: LiveClient): void {
    if (!live.linked) return;
    live.linked = false;
    this.setStatus('disconnected');
    this.listeners.emit('close');
  }

  // ---------------------------------------------------------------- routing

  private async route(live: LiveClient, pattern: unknown): Promise<PatternRoute> {
    const normalised = this.normalizePattern(pattern as MsPattern);
    const legacy = legacyQueryName(pattern);
    if (this.queries.has(normalised)) return { name: normalised, query: true };
    return routeOf(normalised, legacy, await this.patternsOf(live), this.queries);
  }

  /**
   * Asks for the catalogue as soon as a session is bound, so that calls do
   * not wait for it (and are written in the order they were made). A failure
   * here is not anyone's: the next call asks again and gets the error.
   */
  private prefetchPatterns(live: LiveClient): void {
    this.patternsOf(live).catch(() => undefined);
  }

  /**
   * The node's catalogue, asked once per bind and shared by the calls that
   * wait for it. A node without one (UNKNOWN_PATTERN) leaves `queries` as the
   * only source; any other failure fails this call and is asked again next time.
   */
  private patternsOf(live: LiveClient): Promise<KnownPatterns | undefined> {
    if (live.patterns) return live.patterns;
    const asked: Promise<KnownPatterns | undefined> = live.client.patterns().then(
      (catalogue) => knownPatterns(catalogue),
      (error: unknown) => {
        if (error instanceof CommandRefusedError && error.code === 'UNKNOWN_PATTERN') {
          return undefined;
        }
        if (live.patterns === asked) live.patterns = undefined;
        throw error;
      },
    );
    live.patterns = asked;
    return asked;
  }
}
