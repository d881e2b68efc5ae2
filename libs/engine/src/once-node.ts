import { JournalStore, type JournalStoreOptions } from '@once/journal';
import { settingDefault } from '@once/settings';
import { type Observable, concat, defer, ignoreElements, lastValueFrom, tap } from 'rxjs';
import { type ApplyOutcome } from './apply-outcome';
import { CommandRegistry } from './command-registry';
import { type CommandHandler } from './command-handler';
import { Engine } from './engine';
import { type EngineLogger, SILENT_LOGGER } from './engine-logger';
import { type EngineSettings, GENESIS_SETTINGS, validateSettings } from './engine-settings';
import { type ModuleState } from './module-state';
import { type ReplayProgress, replaySaga } from './replay-saga';
import { StateRegistry } from './state-registry';

/** A command the node journals on its own behalf when its data directory is new. */
export interface GenesisCommand {
  readonly pattern: string;
  readonly data: unknown;
}

export interface OnceNodeOptions {
  /** Data directory (created if missing). */
  readonly dataDir: string;
  readonly commands: Iterable<CommandHandler>;
  readonly states: Iterable<[string, ModuleState]>;
  /** Limits wanted now; journaled at boot when they differ from those in force. */
  readonly settings?: Partial<EngineSettings>;
  /** Snapshot every this many ops (0: only at graceful stop). Default: the settings table's. */
  readonly snapshotEveryOps?: number;
  /** Journaled once, in order, when the data directory is new. */
  readonly genesis?: readonly GenesisCommand[];
  readonly logger?: EngineLogger;
  readonly journal?: JournalStoreOptions;
  /** Replay progress report interval. Default 1000 ms. */
  readonly progressIntervalMs?: number;
  /** Replay from op 1 even when snapshots exist. */
  readonly ignoreSnapshots?: boolean;
  /** Sees every outcome the replay produces. */
  readonly onReplayOutcome?: (outcome: ApplyOutcome) => void;
}

/**
 * One node: a journal and the engine that applies it, with the boot sequence
 * that makes them ready.
 *
 * Boot: open the journal → replay saga (snapshot + journal through the apply
 * path) → attach the engine to the journal's durable stream → journal a BOOT
 * entry when limits changed or connection-scoped holdings survived → journal
 * genesis commands on a new directory → ready.
 */
export class OnceNode {
  private constructor(
    readonly journal: JournalStore,
    readonly engine: Engine,
    private readonly options: OnceNodeOptions,
    private readonly isNew: boolean,
  ) {}

  static async open(options: OnceNodeOptions): Promise<OnceNode> {
    const journal = await JournalStore.open(options.dataDir, {
      notice: (message) => options.logger?.warn(message),
      ...options.journal,
    });
    try {
      const engine = new Engine({
        journal,
        commands: new CommandRegistry(options.commands),
        states: new StateRegistry(options.states),
        snapshotEveryOps: options.snapshotEveryOps ?? settingDefault('snapshotEveryOps'),
        logger: options.logger,
      });
      return new OnceNode(journal, engine, options, journal.lastOp === 0);
    } catch (error) {
      await journal.close();
      throw error;
    }
  }

  /** The desired limits: the options over the genesis defaults, validated. */
  get desiredSettings(): EngineSettings {
    return validateSettings({ ...GENESIS_SETTINGS, ...this.options.settings });
  }

  /**
   * Runs the boot sequence. Emits replay progress; completes when the node is
   * ready; errors (leaving the node not ready) on a corrupt journal.
   */
  boot(): Observable<ReplayProgress> {
    const engine = this.engine;
    return concat(
      replayPhase(engine, this.options),
      defer(async () => {
        engine.setPhase('settling');
        engine.attachToJournal();
        await engine.settleBoot(this.desiredSettings);
        if (this.isNew) {
          for (const command of this.options.genesis ?? []) {
            await engine.submitSystemCommand(command.pattern, command.data);
          }
        }
        engine.setPhase('ready');
      }).pipe(ignoreElements()),
    );
  }

  /** Boots and resolves when ready (the last progress report), for callers that do not watch progress. */
  async start(): Promise<ReplayProgress | undefined> {
    let last: ReplayProgress | undefined;
    await lastValueFrom(this.boot().pipe(tap((progress) => (last = progress))), {
      defaultValue: undefined,
    });
    return last;
  }

  stop(options?: { snapshot?: boolean }): Promise<void> {
    return this.engine.stop(options);
  }
}

/**
 * The first phase of a node's boot: the engine replays its journal (newest
 * usable snapshot, then the entries after it) through the apply path.
 */
export function replayPhase(
  engine: Engine,
  options: Pick<
    OnceNodeOptions,
    'logger' | 'progressIntervalMs' | 'ignoreSnapshots' | 'onReplayOutcome'
  >,
): Observable<ReplayProgress> {
  return defer(() => {
    engine.setPhase('replaying');
    return replaySaga(engine.journal, engine.applier, {
      logger: options.logger ?? SILENT_LOGGER,
      progressIntervalMs: options.progressIntervalMs,
      ignoreSnapshots: options.ignoreSnapshots,
      onOutcome: options.onReplayOutcome,
    });
  });
}
