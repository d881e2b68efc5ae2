import { type Journal, JournalStore, type JournalStoreOptions } from '@once/journal/internal';
import { settingDefault } from '@once/settings';
import { type Observable, concat, defer, ignoreElements, lastValueFrom, tap } from 'rxjs';
import { type ApplyOutcome } from './apply-outcome';
import { CommandRegistry } from './command-registry';
import { type CommandHandler } from './command-handler';
import { Engine } from './engine';
import { type EngineLogger, SILENT_LOGGER } from './engine-logger';
import { type EngineSettings, GENESIS_SETTINGS, validateSettings } from './engine-settings';
import { type ReplayProgress, replaySaga } from './replay-saga';
import { LogEvent } from './log-event';
import { type StateDeclaration, StateRegistry } from './state-registry';
import { type NodeMembership, type OnceNodeFactory, type OnceNodePort } from './node-port';

/** A command the node journals on its own behalf when its data directory is new. */
export interface GenesisCommand {
  readonly pattern: string;
  readonly data: unknown;
  /**
   * A few words naming what it creates, for the boot log (`user admin`).
   * Never a secret: the data itself is not logged. Default: none.
   */
  readonly label?: string;
  /**
   * Logged as a warning once the command is journaled, e.g. that it created
   * a user with a default password. It comes with the genesis, so only the
   * node that creates a new data directory (in a cluster, the leader of a
   * new stream) says it, never a restart. Never a secret. Default: none.
   */
  readonly warning?: string;
}

/**
 * Journals the genesis commands in order, each once it applied, logging
 * each as a `genesis-entry` event (pattern, label and op; never the data,
 * which may hold a password).
 */
export async function journalGenesis(
  engine: Engine,
  commands: readonly GenesisCommand[],
  logger: EngineLogger,
): Promise<void> {
  for (const command of commands) {
    const outcome = await engine.journalSystemCommand(command.pattern, command.data);
    const op = outcome.entry.op;
    const label = command.label ? ` (${command.label})` : '';
    logger.log(
      new LogEvent('genesis-entry', `genesis: journaled ${command.pattern}${label} at op ${op}`, {
        op,
        pattern: command.pattern,
        label: command.label ?? null,
      }),
    );
    if (command.warning !== undefined) logger.warn(command.warning);
  }
}

export interface OnceNodeOptions {
  /** Data directory (created if missing). */
  readonly dataDir: string;
  readonly commands: Iterable<CommandHandler>;
  /** The replicated states, each with the version its code is written for (default 1). */
  readonly states: Iterable<StateDeclaration>;
  /**
   * States and command patterns the code retired on purpose: a snapshot's
   * data for a retired state is dropped, a retired command's old entries
   * change nothing and answer COMMAND_RETIRED. Without it, a state or a
   * command the journal holds and no module provides stops the boot.
   */
  readonly retired?: {
    readonly states?: readonly string[];
    readonly commands?: readonly string[];
  };
  /** See `EngineOptions.replyChecks`. Default true. */
  readonly replyChecks?: boolean;
  /**
   * `auto` (the default): when the code's states, versions or commands
   * differ from those in force, boot journals a MANIFEST entry and every
   * later entry applies under this code's versions. `hold`: keep the
   * versions in force (this code applies them), so that the previous build
   * can still run on this journal; set it back to `auto` to finalise.
   */
  readonly upgradeFinalization?: 'auto' | 'hold';
  /** Limits wanted now; journaled at boot when they differ from those in force. */
  readonly settings?: Partial<EngineSettings>;
  /** Snapshot every this many ops (0: only at graceful stop). Default: the settings table's. */
  readonly snapshotEveryOps?: number;
  /** See the `keyedCacheEntries` setting. */
  readonly keyedCacheEntries?: number;
  /** See the `keyedCacheBytes` setting. */
  readonly keyedCacheBytes?: number;
  /** See the `checkpointIntervalMs` setting. */
  readonly checkpointIntervalMs?: number;
  /**
   * Retention: keep the journal from the oldest of the newest this many
   * snapshots on, deleting older entries in the background (see
   * `JournalStore.compact`). Default 0: keep everything.
   */
  readonly journalRetain?: number;
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
export class OnceNode implements OnceNodePort {
  /** A single node belongs to no cluster. */
  readonly cluster: NodeMembership | null = null;

  private constructor(
    readonly journal: JournalStore,
    readonly engine: Engine,
    private readonly options: OnceNodeOptions,
    private readonly isNew: boolean,
  ) {}

  static async open(options: OnceNodeOptions): Promise<OnceNode> {
    const journal = await JournalStore.open(options.dataDir, journalStoreOptions(options));
    try {
      const engine = nodeEngine(journal, options);
      return new OnceNode(journal, engine, options, journal.lastOp === 0);
    } catch (error) {
      await journal.close();
      throw error;
    }
  }

  /** The node's journal (a single node's whole journal): see {@link OnceNodePort.localJournal}. */
  get localJournal(): JournalStore {
    return this.journal;
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
        await engine.settleBoot(this.desiredSettings, {
          upgradeFinalization: this.options.upgradeFinalization,
        });
        if (this.isNew) {
          await journalGenesis(
            engine,
            this.options.genesis ?? [],
            this.options.logger ?? SILENT_LOGGER,
          );
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
 * The single LevelDB node's factory: the default of `OnceModule`'s `node`
 * option. The journal is the data directory's own.
 */
export const singleNode: OnceNodeFactory = (options) => OnceNode.open(options);

/**
 * The engine of a node over `journal`: the node's handlers and states, its
 * snapshot interval (the settings table's by default) and its logger. Every
 * kind of node builds its engine here; only the journal differs.
 */
export function nodeEngine(
  journal: Journal,
  options: Pick<
    OnceNodeOptions,
    | 'commands'
    | 'states'
    | 'retired'
    | 'replyChecks'
    | 'snapshotEveryOps'
    | 'keyedCacheEntries'
    | 'keyedCacheBytes'
    | 'checkpointIntervalMs'
    | 'logger'
  >,
): Engine {
  return new Engine({
    journal,
    commands: new CommandRegistry(options.commands, { retired: options.retired?.commands }),
    states: new StateRegistry(options.states, { retired: options.retired?.states }),
    snapshotEveryOps: options.snapshotEveryOps ?? settingDefault('snapshotEveryOps'),
    keyedCacheEntries: options.keyedCacheEntries,
    keyedCacheBytes: options.keyedCacheBytes,
    checkpointIntervalMs: options.checkpointIntervalMs,
    logger: options.logger,
    replyChecks: options.replyChecks,
  });
}

/**
 * The journal options a node opens its data directory with: `options.journal`
 * over the node's notices (warnings), its retention and a `journal-compacted`
 * event for each background compaction.
 */
export function journalStoreOptions(
  options: Pick<OnceNodeOptions, 'logger' | 'journal' | 'journalRetain'>,
): JournalStoreOptions {
  const logger = options.logger ?? SILENT_LOGGER;
  return {
    notice: (message) => logger.warn(message),
    retainSnapshots: options.journalRetain ?? 0,
    onCompaction: (result) =>
      logger.log(
        new LogEvent(
          'journal-compacted',
          `journal compacted: ${result.deletedEntries} entries deleted in ${result.batches} batches, ${result.elapsedMs} ms; it starts at op ${result.firstOp}`,
          {
            deletedEntries: result.deletedEntries,
            batches: result.batches,
            elapsedMs: result.elapsedMs,
            journalFirstOp: result.firstOp,
          },
        ),
      ),
    ...options.journal,
  };
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
