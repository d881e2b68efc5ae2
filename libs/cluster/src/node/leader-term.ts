import {
  type Engine,
  type EngineLogger,
  type GenesisCommand,
  journalGenesis,
  type EngineSettings,
} from '@once/engine/internal';
import { type JournalEntry } from '@once/journal/internal';
import { type JetStreamJournal } from '../journal';
import { type ClusterJournal } from './cluster-journal';

/** What a term needs of its node. */
export interface TermHost {
  readonly engine: Engine;
  readonly journal: ClusterJournal;
  readonly logger: EngineLogger;
  readonly desiredSettings: EngineSettings;
  readonly genesis: readonly GenesisCommand[];
  /** The writer failed (fenced, or an append failed): the term must end. */
  writerFailed(error: Error): void;
  /**
   * Journals this code's manifest when every live node's code provides it
   * (see `ClusterNode.settleCode`); never rejects: what it cannot do now is
   * tried again while the node leads.
   */
  settleCode(): Promise<void>;
}

/**
 * One leadership of this node, from the moment it is caught up with the
 * stream: its writer appends, each acknowledged entry is copied into the
 * local journal (and so applied), and the first entries it journals settle
 * the takeover.
 *
 * The takeover's BOOT entry is how connection-scoped state survives a
 * leader's death: writes reach only the leader, so whatever sessions held
 * while connected was held through the previous leader's connections, none
 * of which outlive its term; the BOOT entry releases it, once, before this
 * term admits anything.
 */
export class LeaderTerm {
  /** True once the takeover's entries applied: the gateway admits writes from then on. */
  serving = false;
  #ended = false;
  #endReason: Error | undefined;
  readonly #unsubscribe: (() => void)[];

  constructor(
    readonly number: number,
    readonly writer: JetStreamJournal,
    private readonly host: TermHost,
  ) {
    const { local } = host.journal;
    this.#unsubscribe = [
      writer.onStored((entries, encoded) => this.#copy(local, entries, encoded)),
      writer.onFailure((error) => host.writerFailed(error)),
    ];
    host.journal.setWriter(writer);
  }

  /**
   * Journals what a takeover requires (see `settleBootFor`: the BOOT entry
   * when holders survived or limits changed) and, on an empty stream, the
   * genesis commands; then serves. Rejects when an append is refused.
   */
  async settle(streamWasEmpty: boolean): Promise<void> {
    const { engine, desiredSettings, genesis, logger } = this.host;
    await this.host.settleCode();
    await engine.settleBoot(desiredSettings, { upgradeFinalization: 'none' });
    if (streamWasEmpty) await journalGenesis(engine, genesis, logger);
    if (!this.#ended) this.serving = true;
  }

  /**
   * Ends the term: no more appends, no more copies of its acknowledgements
   * (the stream is the authority on what landed; the follower reads it), and
   * every submitter still waiting hears `error`. The writer is closed in the
   * background: a partitioned stream may keep its last groups unsettled for
   * a while, and nothing waits on them.
   */
  get ended(): boolean {
    return this.#ended;
  }

  /** Why the term ended: the first reason given (a refused append, the lease lost, a stop). */
  get endReason(): Error | undefined {
    return this.#endReason;
  }

  end(error: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endReason = error;
    this.serving = false;
    this.host.journal.setWriter(undefined);
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.host.engine.endTerm(error);
    this.writer.close().catch((closeError: unknown) => {
      this.host.logger.warn(`the term ${this.number} writer did not close: ${String(closeError)}`);
    });
  }

  #copy(
    local: ClusterJournal['local'],
    entries: readonly JournalEntry[],
    encoded: readonly Buffer[],
  ): void {
    if (this.#ended) return;
    for (const [index, entry] of entries.entries()) {
      try {
        local.enqueueCopy(entry, encoded[index]);
      } catch (error) {
        // The local journal failed (its own fail-stop reaches the engine) or
        // no longer follows this writer: the term cannot go on.
        this.host.writerFailed(error instanceof Error ? error : new Error(String(error)));
        return;
      }
    }
  }
}
