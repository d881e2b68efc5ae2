import { type OnceModuleOptions } from '@once/framework';
import { JOURNAL_HOOKS, type OnceModuleHookedOptions } from '@once/framework/internal';

/**
 * The journal's hooks a test may set on a node, to fail its writes or hold
 * them on purpose. Not options of `OnceModule` a service offers: a test adds
 * them with {@link withJournalHooks}.
 */
export interface JournalHooks {
  /**
   * Called before each group's batch write with its entry count. A throw or
   * rejection is handled exactly like a LevelDB write failure (the node
   * fails stop); a promise holds the write until it settles.
   */
  readonly beforeWrite?: (entryCount: number) => void | Promise<void>;
  /**
   * Called before each compaction delete batch with its key count. A throw
   * or rejection interrupts the compaction there, as a crash would.
   */
  readonly beforeCompactBatch?: (keyCount: number) => void | Promise<void>;
  /** Now, in ns since the Unix epoch, for the journal's timestamps. Default: the wall clock. */
  readonly clock?: () => bigint;
}

/**
 * `options` for `OnceModule.forRoot`, with the journal's test hooks: e.g.
 * `OnceModule.forRoot(withJournalHooks({ dataDir }, { beforeWrite }))`.
 */
export function withJournalHooks<T extends OnceModuleOptions>(options: T, hooks: JournalHooks): T {
  const hooked: OnceModuleHookedOptions = { ...options, [JOURNAL_HOOKS]: { ...hooks } };
  return hooked as T;
}
