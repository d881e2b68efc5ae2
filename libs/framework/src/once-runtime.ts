import { type CommandDisclosure } from './command-disclosure';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef, ModulesContainer } from '@nestjs/core';
import {
  type Engine,
  type OnceNodePort,
  type ReplayProgress,
  type ReplayVerification,
  singleNode,
  verifyReplay,
} from '@once/engine/internal';
import { LogEvent } from '@once/engine';
import { type JournalStore } from '@once/journal/internal';
import { ClusterOptionMovedError } from './cluster-option-moved.error';
import { type Subscription } from 'rxjs';
import { type BareAdmission } from './bare-admission';
import { type ForeignHandlerError, foreignHandlerError } from './foreign-handlers';
import { HandlerExplorer } from './handler-explorer';
import { type HttpNode, bindHttpHost } from './http/http-node';
import { type OnceHttpOptions } from './http/once-http-options.interface';
import { type OnceAuthenticator } from './once-authenticator.interface';
import { journalHooksOf } from './journal-hooks';
import { type OnceModuleOptions } from './once-module-options.interface';
import { rpcTargetsOf } from './nest/nest-internals';
import { isOnceRuntimeConsumer } from './once-runtime-consumer.interface';
import { ONCE_AUTHENTICATOR, ONCE_MODULE_OPTIONS, ONCE_TRANSPORT } from './once.constants';

/**
 * The node inside a NestJS application: discovers the handlers and states,
 * opens the journal at module init, replays it once the application has
 * bootstrapped, and stops it (drain, snapshot, close) at shutdown.
 *
 * Shutdown rides on Nest's own lifecycle, so `app.close()` and, with
 * `app.enableShutdownHooks()`, SIGTERM and SIGINT stop the node cleanly with
 * no signal handling in the team's main: Nest calls
 * `beforeApplicationShutdown`, then closes the transport (the gateway stops
 * taking requests and answers NOT_READY), then `onApplicationShutdown`, which
 * finishes the commits already in the journal's queue, writes a snapshot and
 * closes the journal.
 *
 * A team injects it for `whenReady()` and `failure`. The members marked
 * `@internal` are for the sibling packages (the gateway, metrics, the CLI):
 * not the team API, and not covered by semver.
 */
@Injectable()
export class OnceRuntime
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('Once');
  private nodeValue: OnceNodePort | undefined;
  private httpNodeValue: HttpNode | undefined;
  private authenticatorValue: OnceAuthenticator | undefined;
  private bootSubscription: Subscription | undefined;
  private readonly readyPromise: Promise<void>;
  private resolveReady!: () => void;
  private rejectReady!: (error: Error) => void;
  private readonly openPromise: Promise<Engine>;
  private resolveOpen!: (engine: Engine) => void;
  private rejectOpen!: (error: Error) => void;
  private bootError: Error | undefined;
  private replayProgressValue: ReplayProgress | undefined;
  /** Transport ids of the application's RPC servers (`undefined` for a strategy without one). */
  private readonly rpcTransports: unknown[] = [];
  private bareAdmissions: Map<string, BareAdmission> | undefined;
  private disclosure: CommandDisclosure | undefined;

  /**
   * NestJS constructs the runtime; a team injects it.
   *
   * @internal
   */
  constructor(
    @Inject(ONCE_MODULE_OPTIONS) readonly options: OnceModuleOptions,
    private readonly explorer: HandlerExplorer,
    private readonly modules: ModulesContainer,
    private readonly moduleRef: ModuleRef,
  ) {
    this.readyPromise = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.openPromise = new Promise<Engine>((resolve, reject) => {
      this.resolveOpen = resolve;
      this.rejectOpen = reject;
    });
    // A caller that never awaits must not see an unhandled rejection.
    this.readyPromise.catch(() => undefined);
    this.openPromise.catch(() => undefined);
    // Attach to the application's once strategies as soon as they exist: a
    // hybrid app may start its microservices before module init runs.
    rpcTargetsOf(this.modules).subscribe((target) => {
      this.rpcTransports.push((target as { transportId?: unknown } | null)?.transportId);
      if (isOnceRuntimeConsumer(target)) target.attachOnceRuntime(this);
    });
  }

  /**
   * Why a once server must not listen: a NestJS message or event handler of
   * the application that NestJS binds to the once transport, where no client
   * can reach it (see `foreignHandlerError`). Undefined when there is none.
   *
   * @internal
   */
  foreignHandlerError(): ForeignHandlerError | undefined {
    const others = this.rpcTransports.filter((transport) => transport !== ONCE_TRANSPORT).length;
    return foreignHandlerError(this.explorer.foreignHandlers(), others);
  }

  /**
   * The admission of the `@Command` answering `route` without NestJS's
   * pipeline, when that pipeline holds nothing but once's own pieces (see
   * {@link BareAdmission}). Found at the first call, which the gateway makes
   * at its first command, after NestJS registered the handlers.
   *
   * @internal
   */
  bareAdmission(route: string): BareAdmission | undefined {
    this.bareAdmissions ??= this.explorer.bareAdmissions();
    return this.bareAdmissions.get(route);
  }

  /**
   * What each command declared sensitive in its journaled body (the
   * `sensitive` option of `@Command`), for the journal feed. Read at the
   * first call, once the application's providers exist.
   *
   * @internal
   */
  commandDisclosure(): CommandDisclosure {
    this.disclosure ??= this.explorer.commandDisclosure();
    return this.disclosure;
  }

  /**
   * Resolves with the engine once the data directory is open (module init); rejects if it cannot open.
   *
   * @internal
   */
  whenOpen(): Promise<Engine> {
    return this.openPromise;
  }

  /**
   * Whether the data directory was opened (the node and its engine exist).
   *
   * @internal
   */
  get opened(): boolean {
    return this.nodeValue !== undefined;
  }

  /**
   * The node the `node` option's factory opened (a single node by default).
   *
   * @internal
   */
  get node(): OnceNodePort {
    if (!this.nodeValue) throw new Error('the once node is not open yet (module init has not run)');
    return this.nodeValue;
  }
  /**
   * The node's engine.
   *
   * @internal
   */
  get engine(): Engine {
    return this.node.engine;
  }
  /**
   * The node's LevelDB journal: all of it on a single node, the applied copy in a cluster.
   *
   * @internal
   */
  get journal(): JournalStore {
    return this.node.localJournal;
  }
  /**
   * Undefined when the application provides no ONCE_AUTHENTICATOR: every REGISTER is refused.
   *
   * @internal
   */
  get authenticator(): OnceAuthenticator | undefined {
    return this.authenticatorValue;
  }
  /**
   * The options of the application's `@Idempotent` routes.
   *
   * @internal
   */
  get httpOptions(): OnceHttpOptions {
    return this.options.http ?? {};
  }

  /**
   * The node as the application's `@Idempotent` routes see it; undefined
   * until the data directory is open.
   *
   * @internal
   */
  httpNode(): HttpNode | undefined {
    if (!this.nodeValue) return undefined;
    // Built once: every request's admission asks for it, and its members read live.
    this.httpNodeValue ??= this.httpNodeOf(this.nodeValue.engine);
    return this.httpNodeValue;
  }

  private httpNodeOf(engine: Engine): HttpNode {
    // Read at each look: a cluster node's role changes with its lease.
    const stopping = () => this.stopAnnounced;
    return {
      // Stopping: NestJS still routes HTTP until the server closes, the journal drains.
      get serving() {
        return engine.ready && !stopping();
      },
      get phase() {
        return stopping() ? 'stopping' : engine.phase;
      },
      get writable() {
        return engine.role.writable;
      },
      get leader() {
        return engine.role.view.leader;
      },
      submitHttp: (request, options) => engine.submitHttp(request, options),
    };
  }

  /** Replay failed: the reason (the node never becomes ready). */
  get failure(): Error | undefined {
    return this.bootError;
  }

  /**
   * The replay's latest progress report (at most one per `progressIntervalMs`,
   * and the final one); undefined until replay reported once.
   *
   * @internal
   */
  get replayProgress(): ReplayProgress | undefined {
    return this.replayProgressValue;
  }

  /** Resolves when replay is done and the node serves; rejects if boot failed. */
  whenReady(): Promise<void> {
    return this.readyPromise;
  }

  /**
   * Opens the data directory, once per application: NestJS runs module
   * hooks again on some of its documented start-up paths (`init()` then
   * `listen()`; a hybrid app's microservice with `deferInitialization`), and
   * a second open would find the directory locked by this very process.
   */
  onModuleInit(): Promise<void> {
    this.opening ??= this.openOnce();
    return this.opening;
  }

  private opening: Promise<void> | undefined;

  private async openOnce(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      this.rejectOpen(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    this.resolveOpen(this.engine);
  }

  private async open(): Promise<void> {
    if ((this.options as { cluster?: unknown }).cluster !== undefined) {
      throw new ClusterOptionMovedError();
    }
    const { commands, states } = this.explorer.explore();
    for (const controller of this.explorer.idempotentControllers()) bindHttpHost(controller, this);
    this.authenticatorValue = this.resolveAuthenticator();
    const nodeOptions = {
      dataDir: this.options.dataDir,
      commands,
      states,
      settings: {
        ...(this.options.clientsMax !== undefined && { clientsMax: this.options.clientsMax }),
        ...(this.options.ring !== undefined && { ring: this.options.ring }),
        ...(this.options.sessionTtlMs !== undefined && { sessionTtlMs: this.options.sessionTtlMs }),
        ...(this.options.httpKeyRetentionMs !== undefined && {
          httpKeyRetentionMs: this.options.httpKeyRetentionMs,
        }),
        ...(this.options.httpKeysMax !== undefined && { httpKeysMax: this.options.httpKeysMax }),
      },
      snapshotEveryOps: this.options.snapshotEveryOps,
      keyedCacheEntries: this.options.keyedCacheEntries,
      keyedCacheBytes: this.options.keyedCacheBytes,
      checkpointIntervalMs: this.options.checkpointIntervalMs,
      journalRetain: this.options.journalRetain,
      retired: this.options.retired,
      // A verification writes nothing, reply checks included.
      replyChecks: this.options.verifyOnly ? false : this.options.replyChecks,
      upgradeFinalization: this.options.upgradeFinalization,
      genesis: this.options.genesis,
      // Nor does it upgrade an older format in place (it reads format 2 as it is).
      journal: this.options.verifyOnly
        ? { ...journalHooksOf(this.options), upgradeFormat: false }
        : journalHooksOf(this.options),
      progressIntervalMs: this.options.progressIntervalMs,
      logger: this.logger,
    };
    // Verification reads the local journal alone, whatever the node's mode.
    const open = this.options.verifyOnly ? singleNode : (this.options.node ?? singleNode);
    this.nodeValue = await open(nodeOptions);
    const cluster = this.nodeValue.cluster;
    const journal = this.journal;
    const lastOp = journal.lastOp;
    const compacted =
      journal.firstOp > 1 ? ` (journal from op ${journal.firstOp}: earlier ops compacted)` : '';
    const where = cluster ? `; node ${cluster.nodeId} of cluster ${cluster.clusterName}` : '';
    this.logger.log(
      new LogEvent(
        'opened',
        `data directory ${this.options.dataDir} opened at op ${lastOp}${compacted}; ${commands.length} commands, ${states.length} states${where}`,
        {
          dataDir: this.options.dataDir,
          op: lastOp,
          journalFirstOp: journal.firstOp,
          commands: commands.length,
          states: states.length,
          nodeId: cluster?.nodeId ?? null,
        },
      ),
    );
  }

  private verification: Promise<ReplayVerification> | undefined;

  /**
   * With `verifyOnly`: the result of replaying the whole journal (see verifyReplay).
   *
   * @internal
   */
  whenVerified(): Promise<ReplayVerification> {
    if (!this.verification)
      throw new Error('whenVerified() needs OnceModule options { verifyOnly: true }');
    return this.verification;
  }

  /** Boots the node (replay, then serve), once per application however often NestJS calls the hook. */
  onApplicationBootstrap(): void {
    if (this.bootSubscription || this.verification) return;
    if (this.options.verifyOnly) {
      this.verification = verifyReplay(this.journal, this.engine);
      this.verification.catch(() => undefined);
      return;
    }
    this.bootSubscription = this.node.boot().subscribe({
      next: (progress) => this.logProgress(progress),
      error: (error: unknown) => {
        this.bootError = error instanceof Error ? error : new Error(String(error));
        const { code } = this.bootError as { code?: unknown };
        const named = typeof code === 'string' ? ` (${code})` : '';
        this.logger.error(`boot failed${named}: ${this.bootError.message}`);
        this.rejectReady(this.bootError);
      },
      complete: () => {
        const op = this.engine.commitOp;
        this.logger.log(new LogEvent('ready', `ready at op ${op}`, { op }));
        this.resolveReady();
      },
    });
  }

  beforeApplicationShutdown(signal?: string): void {
    if (!this.nodeValue || this.options.verifyOnly || this.stopAnnounced) return;
    this.stopAnnounced = true;
    const cause = signal ?? 'close';
    this.logger.log(
      new LogEvent(
        'stopping',
        `${cause}: stopping at op ${this.engine.commitOp} (finishing in-flight commits, writing a snapshot)`,
        { signal: cause, op: this.engine.commitOp },
      ),
    );
  }

  /** Stops the node, once however often NestJS calls the hook (a hybrid app closes each of its parts). */
  onApplicationShutdown(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private stopping: Promise<void> | undefined;
  private stopAnnounced = false;

  private async stopOnce(): Promise<void> {
    this.bootSubscription?.unsubscribe();
    // A verification writes nothing, not even the snapshot a stop takes.
    if (this.nodeValue) await this.nodeValue.stop({ snapshot: !this.options.verifyOnly });
  }

  /**
   * One line per report while the replay runs, and one when it is done:
   * how many entries, which ops, how long, how fast.
   */
  private logProgress(progress: ReplayProgress): void {
    this.replayProgressValue = progress;
    const { appliedEntries, totalEntries, snapshotOp, elapsedMs, entriesPerSecond } = progress;
    const fields = {
      appliedEntries,
      totalEntries,
      snapshotOp,
      commitOp: progress.commitOp,
      elapsedMs,
      entriesPerSecond,
    };
    if (!progress.done) {
      this.logger.log(
        new LogEvent(
          'replay-progress',
          `replay: ${appliedEntries}/${totalEntries} entries applied (up to op ${progress.commitOp}), ${entriesPerSecond} entries/s, ${elapsedMs} ms`,
          fields,
        ),
      );
      return;
    }
    const text =
      appliedEntries === 0
        ? `replay applied 0 entries (nothing after op ${snapshotOp})`
        : `replay applied ${appliedEntries} entries (ops ${snapshotOp + 1}..${progress.commitOp}) in ${elapsedMs} ms at ${entriesPerSecond} entries/s`;
    this.logger.log(new LogEvent('replay-done', text, fields));
  }

  private resolveAuthenticator(): OnceAuthenticator | undefined {
    try {
      return this.moduleRef.get<OnceAuthenticator>(ONCE_AUTHENTICATOR, { strict: false });
    } catch {
      this.logger.warn('no ONCE_AUTHENTICATOR provider: every REGISTER will be refused');
      return undefined;
    }
  }
}
