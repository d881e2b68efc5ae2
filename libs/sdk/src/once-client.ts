import { defer, type Observable } from 'rxjs';
import { HEADER_SIZE } from '@once/protocol/internal';
import { randomClientId } from '@once/protocol';
import { AlreadyAppliedError } from './errors/already-applied.error';
import { ClientClosedError } from './errors/client-closed.error';
import { CommandRefusedError } from './errors/command-refused.error';
import { InvalidOptionsError } from './errors/invalid-options.error';
import { InvalidPayloadError } from './errors/invalid-payload.error';
import { IdentityFileWriteError } from './errors/identity-file-write.error';
import { OnceError } from './errors/once.error';
import { OutcomeUnknownError } from './errors/outcome-unknown.error';
import { readIdentityFile } from './identity-file';
import { IdentityPersister } from './identity-persister';
import { type IdentityRecord } from './identity-record';
import { type NodeAddress } from './node-address';
import { type OnceClientEvent } from './once-client-event';
import {
  PATTERN_CATALOGUE_QUERY,
  type PatternCatalogue,
  toPatternCatalogue,
} from './pattern-catalogue';
import {
  type OnceClientOptions,
  type ResolvedOptions,
  resolveOptions,
} from './once-client-options';
import { CommandEntry, QueryEntry } from './pending-request';
import { type RecoveredRequest } from './recovered-request';
import { callBody } from './request-frames';
import { RequestPipeline } from './request-pipeline';
import { SessionDriver } from './session-driver';
import { type IdentityView, SessionIdentity } from './session-identity';

/** Options of {@link OnceClient.close}. */
export interface CloseOptions {
  /**
   * End the session: after the pending commands settle, send LOGOUT (under the
   * next request number) and wait for it to commit; the identity file is then
   * removed. Default false: the session stays resumable (and the file is kept).
   */
  logout?: boolean;
  /**
   * Do not wait for pending requests: queued ones fail with ClientClosedError
   * (never sent), sent ones with OutcomeUnknownError (CLIENT_CLOSED; they stay
   * in the identity file). Default false.
   */
  force?: boolean;
}

/**
 * A client of a once node: commands applied exactly once across disconnects,
 * node crashes and (with `identityFile`) crashes of this process.
 *
 * ```ts
 * const client = await OnceClient.connect({ port: 7700, username: 'admin', password });
 * await client.command('ledger.deposit', { account: 'a', amount: 5 });
 * const { balance } = await client.query<{ balance: number }>('ledger.balance', { account: 'a' });
 * await client.close({ logout: true });
 * ```
 *
 * Every command gets the next request number when it is first sent, and keeps
 * it until the node answers: after a disconnect it is resent under that number
 * with the same body, so the node applies it once and answers a retry from its
 * reply cache. With `nodes` (several nodes of one cluster), the resend may go
 * to another node: the number and body stay the same whatever node answers. If the session itself is lost (evicted, expired, ...), commands
 * in doubt fail with {@link OutcomeUnknownError} instead of being retried.
 */
export class OnceClient {
  /**
   * Transitions of the connection and the session; see {@link OnceClientEvent}.
   * Hot: events of the first bind happen before `connect()` resolves and are not
   * replayed. Completes when the client closes or stops.
   */
  readonly events$: Observable<OnceClientEvent>;
  /**
   * Outcomes of the commands an identity file held in doubt at connect (sent
   * by a previous process, resent now under their original numbers). Resolves
   * once each is settled; `[]` without an identity file or without such commands.
   */
  readonly recovered: Promise<RecoveredRequest[]>;

  private closePromise: Promise<void> | undefined;

  private constructor(
    private readonly options: ResolvedOptions,
    private readonly driver: SessionDriver,
    recovered: Promise<RecoveredRequest[]>,
  ) {
    this.events$ = driver.events.asObservable();
    this.recovered = recovered;
  }

  /**
   * Connects and binds a session: REGISTER with the credentials, or, with an
   * identity file that exists, the session it records (resume token, else
   * REGISTER with the same client id), resending its in-doubt commands.
   *
   * Rejects with ConnectError when the node cannot be reached (with `nodes`:
   * when none of them could, each tried once in order; no further retry: the
   * caller chooses), LeaderNotTrustedError when a follower names a leader the
   * client may not connect to (`trustLeaderHints`) and no other node bound,
   * UnauthenticatedError, ClientOwnedByOtherUserError,
   * IdentityFileCorruptError or InvalidOptionsError. NOT_READY naming no
   * leader (a node still replaying, a cluster between leaders) is waited out
   * with the reconnect backoff, trying the other nodes meanwhile; each wait
   * is reported (`waiting` event, seen through `onEvent`, and `logger`).
   */
  static async connect(options: OnceClientOptions): Promise<OnceClient> {
    const resolved = resolveOptions(options);
    const record = resolved.identityFile
      ? await readIdentityFile(resolved.identityFile)
      : undefined;
    if (record && resolved.clientId !== undefined && resolved.clientId !== record.clientId) {
      throw new InvalidOptionsError(
        `option clientId ${resolved.clientId} differs from the identity file's ${record.clientId}`,
      );
    }
    const identity = record
      ? SessionIdentity.restore(record)
      : new SessionIdentity(resolved.clientId ?? randomClientId());
    const pipeline = new RequestPipeline(resolved.inFlightMax, resolved.queuedMax);
    // The persister reads the driver's state, and the driver owns the persister.
    const late: { driver?: SessionDriver } = {};
    const persister = resolved.identityFile
      ? new IdentityPersister(
          resolved.identityFile,
          () => snapshotOf(late.driver!),
          (error) =>
            late.driver?.failWith(
              new IdentityFileWriteError(resolved.identityFile!, { cause: error }),
            ),
        )
      : undefined;
    const driver = (late.driver = new SessionDriver(
      resolved,
      identity,
      pipeline,
      persister,
      record?.registering ?? false,
    ));
    const recovered = adoptInDoubt(record, pipeline);
    const client = new OnceClient(resolved, driver, recovered);
    try {
      await driver.start();
    } catch (error) {
      await driver.shutdown(false);
      throw error;
    }
    return client;
  }

  /** The identity as it stands now (it changes with every command and resume). */
  get identity(): IdentityView {
    return this.driver.identity.view();
  }

  /**
   * The node the session is bound on now, `undefined` while no connection is
   * bound (reconnecting, stopped). `events$` reports each change (`node`).
   */
  get node(): NodeAddress | undefined {
    const node = this.driver.node;
    return node && { host: node.host, port: node.port };
  }

  /**
   * Every node the client may connect to: `nodes` (or the one of
   * `host`/`port`), then the addresses learnt from the nodes (`learnNodes`).
   */
  get nodes(): readonly NodeAddress[] {
    return this.driver.nodes.map(({ host, port }) => ({ host, port }));
  }

  /**
   * True once the client stopped for good: closed, or failed (see
   * {@link failure}). A stopped client refuses every request with
   * ClientClosedError; connect a new one to go on (with the same
   * `identityFile` or `clientId`, it resumes the same session).
   */
  get stopped(): boolean {
    return this.driver.stopped;
  }

  /**
   * Why the client stopped, when it failed rather than closed: ConnectError
   * after `reconnect.attemptsMax`, UnauthenticatedError on a resume,
   * IdentityFileWriteError, ... `undefined` while it runs and after `close()`.
   */
  get failure(): OnceError | undefined {
    return this.driver.failure;
  }

  /**
   * Sends a command, applied exactly once by the node. Resolves with the
   * handler's `result`. Rejects with:
   * - CommandRefusedError: the handler's committed refusal (its `code`);
   * - AlreadyAppliedError: applied, but the result is no longer known;
   * - OutcomeUnknownError: the session was lost while it was in doubt;
   * - RequestTimeoutError: the caller's wait ended (see its `request`);
   * - InvalidPayloadError, ClientClosedError, and the protocol errors of client
   *   bugs (RequestConflictError, RequestGapError, ...).
   */
  command<T = unknown>(pattern: string, data: unknown): Promise<T> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    const body = this.bodyOf(pattern, data);
    if (body instanceof InvalidPayloadError) return Promise.reject(body);
    return new Promise<T>((resolve, reject) => {
      const entry = new CommandEntry('command', pattern, body, {
        resolve: (result) => resolve(result as T),
        reject,
      });
      const timeoutMs = this.options.requestTimeoutMs;
      if (timeoutMs > 0)
        entry.timer = setTimeout(() => this.driver.timeOut(entry, timeoutMs), timeoutMs);
      this.driver.submit(entry);
    });
  }

  /**
   * {@link command} as a cold Observable: the command is sent on subscription
   * (once per subscription), emits its result and completes. Unsubscribing
   * does not withdraw a command that was sent.
   */
  command$<T = unknown>(pattern: string, data: unknown): Observable<T> {
    return defer(() => this.command<T>(pattern, data));
  }

  /**
   * Runs a query (a read: request number 0, nothing journaled) on a bound
   * connection. A query pending across a reconnect is sent again once the
   * session is bound. Rejects with CommandRefusedError for the handler's
   * refusal, RequestTimeoutError, InvalidPayloadError, ClientClosedError.
   */
  query<T = unknown>(pattern: string, data: unknown): Promise<T> {
    const refused = this.refusal();
    if (refused) return Promise.reject(refused);
    const body = this.bodyOf(pattern, data);
    if (body instanceof InvalidPayloadError) return Promise.reject(body);
    return new Promise<T>((resolve, reject) => {
      const query = new QueryEntry(pattern, body, {
        resolve: (result) => resolve(result as T),
        reject,
      });
      const timeoutMs = this.options.requestTimeoutMs;
      if (timeoutMs > 0) {
        query.timer = setTimeout(() => this.driver.timeOutQuery(query, timeoutMs), timeoutMs);
      }
      this.driver.submitQuery(query);
    });
  }

  /** {@link query} as a cold Observable: one query per subscription. */
  query$<T = unknown>(pattern: string, data: unknown): Observable<T> {
    return defer(() => this.query<T>(pattern, data));
  }

  /**
   * The patterns the node's handlers registered, by kind (the reserved QUERY
   * {@link PATTERN_CATALOGUE_QUERY}): lets a caller send each pattern the way
   * its handler expects without being told. A node too old to know the
   * catalogue refuses it with CommandRefusedError UNKNOWN_PATTERN; otherwise
   * it rejects as {@link query} does.
   */
  async patterns(): Promise<PatternCatalogue> {
    return toPatternCatalogue(await this.query(PATTERN_CATALOGUE_QUERY, {}));
  }

  /**
   * Closes the client. New requests are refused at once (ClientClosedError).
   * Pending requests are waited for, at most `requestTimeoutMs` (unbounded
   * when 0), unless `force`; what is still pending then fails (queued:
   * ClientClosedError; sent: OutcomeUnknownError with reason CLIENT_CLOSED).
   * With `logout`, LOGOUT is sent and awaited next (rejects if it cannot be
   * confirmed; the client is closed either way). Then the connection closes
   * and `events$` completes. Idempotent: later calls return the first one's promise.
   */
  close(options: CloseOptions = {}): Promise<void> {
    this.closePromise ??= this.runClose(options);
    return this.closePromise;
  }

  private async runClose({ logout = false, force = false }: CloseOptions): Promise<void> {
    const driver = this.driver;
    driver.closing = true;
    let failure: Error | undefined;
    try {
      if (!driver.stopped) {
        if (!force) await driver.whenIdle(this.options.requestTimeoutMs);
        driver.abandon();
        if (logout) await driver.logout(this.options.requestTimeoutMs);
      }
    } catch (error) {
      failure = error as Error;
    }
    await driver.shutdown();
    if (failure !== undefined) throw failure;
  }

  /** Why a new request cannot be taken, if it cannot. */
  private refusal(): OnceError | undefined {
    if (this.driver.closing) return new ClientClosedError();
    if (this.driver.stopped) {
      const cause = this.driver.failure;
      return new ClientClosedError(
        cause ? `the client stopped: ${cause.message}` : 'the client is closed',
        { cause },
      );
    }
    return undefined;
  }

  /** The request body, or why it cannot be sent (nothing is thrown: both callers reject). */
  private bodyOf(pattern: string, data: unknown): Buffer | InvalidPayloadError {
    if (typeof pattern !== 'string' || pattern.length === 0) {
      return new InvalidPayloadError('pattern must be a non-empty string');
    }
    let body: Buffer;
    try {
      body = callBody(pattern, data);
    } catch (error) {
      return new InvalidPayloadError(
        `${pattern}: data is not JSON-serialisable (${error instanceof Error ? error.message : String(error)})`,
        { cause: error },
      );
    }
    if (HEADER_SIZE + body.length > this.options.frameBytesMax) {
      return new InvalidPayloadError(
        `${pattern}: a frame of ${HEADER_SIZE + body.length} bytes exceeds frameBytesMax ${this.options.frameBytesMax}`,
      );
    }
    return body;
  }
}

/** What the identity file must hold now: the identity and every numbered, unanswered command. */
function snapshotOf(driver: SessionDriver): IdentityRecord {
  const identity = driver.identity;
  return {
    clientId: identity.clientId,
    userId: identity.userId,
    epoch: identity.epoch,
    resumeToken: identity.resumeToken,
    nextRequest: identity.nextRequest,
    watermark: identity.watermark,
    registering: driver.registerInDoubt,
    inDoubt: driver.pipeline
      .unanswered()
      .filter((entry) => entry.kind === 'command')
      .map((entry) => ({ request: entry.request, body: entry.body })),
  };
}

/**
 * Puts the identity file's in-doubt commands back in flight under their
 * numbers; the returned promise collects their outcomes.
 */
function adoptInDoubt(
  record: IdentityRecord | undefined,
  pipeline: RequestPipeline,
): Promise<RecoveredRequest[]> {
  if (!record || record.inDoubt.length === 0) return Promise.resolve([]);
  const outcomes = record.inDoubt.map(({ request, body }) => {
    const pattern = patternOf(body);
    return new Promise<RecoveredRequest>((resolve) => {
      const entry = new CommandEntry('command', pattern, body, {
        resolve: (result) => resolve({ request, pattern, outcome: 'applied', result }),
        reject: (error) => resolve(recoveredFailure(request, pattern, error)),
      });
      pipeline.adopt(entry, request);
    });
  });
  return Promise.all(outcomes);
}

function recoveredFailure(request: number, pattern: string, error: unknown): RecoveredRequest {
  if (error instanceof CommandRefusedError) {
    return { request, pattern, outcome: 'refused', code: error.code, message: error.message };
  }
  if (error instanceof AlreadyAppliedError) {
    return { request, pattern, outcome: 'already-applied-result-unknown' };
  }
  const reason =
    error instanceof OutcomeUnknownError
      ? error.reason
      : error instanceof OnceError
        ? error.code
        : String(error);
  return { request, pattern, outcome: 'outcome-unknown', reason };
}

/** The `pattern` of a stored command body (for reporting only; the bytes are resent as they are). */
function patternOf(body: Buffer): string {
  try {
    const { pattern } = JSON.parse(body.toString('utf8')) as { pattern?: unknown };
    return typeof pattern === 'string' ? pattern : '';
  } catch {
    return '';
  }
}
