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
  OnceNode,
  type ReplayProgress,
  type ReplayVerification,
  verifyReplay,
} from '@once/engine';
import { type JournalStore } from '@once/journal';
import { ClusterNode } from '@once/cluster';
import { type Subscription } from 'rxjs';
import { type ForeignHandlerError, foreignHandlerError } from './foreign-handlers';
import { HandlerExplorer } from './handler-explorer';
import { type OnceAuthenticator } from './once-authenticator.interface';
import { type OnceModuleOptions } from './once-module-options.interface';
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
 */
@Injectable()
export class OnceRuntime
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('Once');
  private nodeValue: OnceNode | ClusterNode | undefined;
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
    this.modules.getRpcTargetRegistry().subscribe((target) => {
      this.rpcTransports.push((target as { transportId?: unknown } | null)?.transportId);
      if (isOnceRuntimeConsumer(target)) target.attachOnceRuntime(this);
    });
  }

  /**
   * Why a once server must not listen: a NestJS message or event handler of
   * the application that NestJS binds to the once transport, where no client
   * can reach it (see `foreignHandlerError`). Undefined when there is none.
   */
  foreignHandlerError(): ForeignHandlerError | undefined {
    const others = this.rpcTransports.filter((transport) => transport !== ONCE_TRANSPORT).length;
    return foreignHandlerError(this.explorer.foreignHandlers(), others);
  }

  /** Resolves with the engine once the data directory is open (module init); rejects if it cannot open. */
  whenOpen(): Promise<Engine> {
    return this.openPromise;
  }

  get node(): OnceNode | ClusterNode {
    if (!this.nodeValue) throw new Error('the once node is not open yet (module init has not run)');
    return this.nodeValue;
  }
  get engine(): Engine {
    return this.node.engine;
  }
  /** The node's LevelDB journal: all of it on a single node, the applied copy in a cluster. */
  get journal(): JournalStore {
    const node = this.node;
    return node instanceof ClusterNode ? node.localJournal : node.journal;
  }
  /** Undefined when the application provides no ONCE_AUTHENTICATOR: every REGISTER is refused. */
  get authenticator(): OnceAuthenticator | undefined {
    return this.authenticatorValue;
  }
  /** Replay failed: the reason (the node never becomes ready). */
  get failure(): Error | undefined {
    return this.bootError;
  }

  /**
   * The replay's latest progress report (at most one per `progressIntervalMs`,
   * and the final one); undefined until replay reported once.
   */
  get replayProgress(): ReplayProgress | undefined {
    return this.replayProgressValue;
  }

  /** Resolves when replay is done and the node serves; rejects if boot failed. */
  whenReady(): Promise<void> {
    return this.readyPromise;
  }

  async onModuleInit(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      this.rejectOpen(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    this.resolveOpen(this.engine);
  }

  private async open(): Promise<void> {
    const { commands, states } = this.explorer.explore();
    this.authenticatorValue = this.resolveAuthenticator();
    const nodeOptions = {
      dataDir: this.options.dataDir,
      commands,
      states,
      settings: {
        ...(this.options.clientsMax !== undefined && { clientsMax: this.options.clientsMax }),
        ...(this.options.ring !== undefined && { ring: this.options.ring }),
        ...(this.options.sessionTtlMs !== undefined && { sessionTtlMs: this.options.sessionTtlMs }),
      },
      snapshotEveryOps: this.options.snapshotEveryOps,
      genesis: this.options.genesis,
      journal: this.options.journal,
      progressIntervalMs: this.options.progressIntervalMs,
      logger: this.logger,
    };
    // Verification reads the local journal alone, whatever the node's mode.
    const cluster = this.options.verifyOnly ? undefined : this.options.cluster;
    this.nodeValue = cluster
      ? await ClusterNode.open({ ...nodeOptions, ...cluster })
      : await OnceNode.open(nodeOptions);
    this.logger.log(
      `data directory ${this.options.dataDir} open at op ${this.journal.lastOp}; ${commands.length} commands, ${states.length} states${cluster ? `; node ${cluster.nodeId} of cluster ${cluster.clusterName ?? 'once'}` : ''}`,
    );
  }

  private verification: Promise<ReplayVerification> | undefined;

  /** With `verifyOnly`: the result of replaying the whole journal (see verifyReplay). */
  whenVerified(): Promise<ReplayVerification> {
    if (!this.verification)
      throw new Error('whenVerified() needs OnceModule options { verifyOnly: true }');
    return this.verification;
  }

  onApplicationBootstrap(): void {
    if (this.options.verifyOnly) {
      this.verification = verifyReplay(this.journal, this.engine);
      this.verification.catch(() => undefined);
      return;
    }
    this.bootSubscription = this.node.boot().subscribe({
      next: (progress) => this.logProgress(progress),
      error: (error: unknown) => {
        this.bootError = error instanceof Error ? error : new Error(String(error));
        this.logger.error(`boot failed: ${this.bootError.message}`);
        this.rejectReady(this.bootError);
      },
      complete: () => {
        this.logger.log(`ready at op ${this.engine.commitOp}`);
        this.resolveReady();
      },
    });
  }

  beforeApplicationShutdown(signal?: string): void {
    if (!this.nodeValue || this.options.verifyOnly) return;
    this.logger.log(
      `${signal ?? 'close'}: stopping (finishing in-flight commits, writing a snapshot)`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.bootSubscription?.unsubscribe();
    // A verification writes nothing, not even the snapshot a stop takes.
    if (this.nodeValue) await this.nodeValue.stop({ snapshot: !this.options.verifyOnly });
  }

  private logProgress(progress: ReplayProgress): void {
    this.replayProgressValue = progress;
    if (progress.totalEntries === 0 && progress.done) {
      this.logger.log(`replay: nothing to apply after op ${progress.snapshotOp}`);
      return;
    }
    this.logger.log(
      `replay${progress.done ? ' done' : ''}: ${progress.appliedEntries}/${progress.totalEntries} entries after snapshot op ${progress.snapshotOp}, ${progress.entriesPerSecond} entries/s, ${progress.elapsedMs} ms`,
    );
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
