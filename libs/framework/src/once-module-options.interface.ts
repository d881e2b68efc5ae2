import { type ModuleMetadata } from '@nestjs/common';
import { type GenesisCommand, type OnceNodeFactory } from '@once/engine/internal';
import { type OnceHttpOptions } from './http/once-http-options.interface';

/**
 * Options of `OnceModule`. The settings of the engine layer (`dataDir`,
 * `clientsMax`, `ring`, `sessionTtlMs`, `httpKeyRetentionMs`, `httpKeysMax`, `snapshotEveryOps`,
 * `keyedCacheEntries`, `keyedCacheBytes`, `checkpointIntervalMs`, `journalRetain`) carry the names,
 * ranges and defaults of the settings table in `@once/settings` (shown in
 * the README, "Running the service"); an option left out takes the table's
 * default.
 */
export interface OnceModuleOptions {
  /** LevelDB data directory, one process at a time (required here; the service's default is ./data). */
  readonly dataDir: string;
  /** Client table capacity (sessions). */
  readonly clientsMax?: number;
  /** Replies cached per session, and requests in flight per session. */
  readonly ring?: number;
  /** Sessions idle longer than this (journal time) expire (0: never). */
  readonly sessionTtlMs?: number;
  /** How long (journal time) an Idempotency-Key of an HTTP request is remembered with its response. */
  readonly httpKeyRetentionMs?: number;
  /** Idempotency-Keys remembered at once; beyond it the oldest is forgotten early. */
  readonly httpKeysMax?: number;
  /** Snapshot every this many ops (0: only at graceful stop). */
  readonly snapshotEveryOps?: number;
  /** Keyed-state records kept in memory to read from (see `KeyedState`). */
  readonly keyedCacheEntries?: number;
  /** Bytes of keyed-state records kept in memory to read from, off the JavaScript heap. */
  readonly keyedCacheBytes?: number;
  /** With keyed state, least time between two checkpoints (ms; 0: none, records go with snapshots only). */
  readonly checkpointIntervalMs?: number;
  /**
   * Retention: keep the journal from the oldest of the newest this many
   * snapshots on; older entries are deleted in the background (0: keep
   * everything, the default). A replay from op 1 is then impossible.
   */
  readonly journalRetain?: number;
  /** Commands journaled once, in order, when the data directory is new. */
  readonly genesis?: readonly GenesisCommand[];
  /**
   * States and command patterns this code no longer provides, on purpose.
   * A snapshot's data for a retired state is dropped (the next snapshot no
   * longer holds it); a retired command's journaled entries change nothing
   * when replayed and answer `COMMAND_RETIRED`. Without this declaration a
   * state or command the journal holds and no module provides stops the
   * boot (STATE_NOT_PROVIDED, COMMAND_NOT_PROVIDED): a module removed by
   * mistake never silently drops its data. Default: none.
   */
  readonly retired?: {
    readonly states?: readonly string[];
    readonly commands?: readonly string[];
  };
  /**
   * Journal the checksums of each group's replies (a REPLY_CHECK entry, in
   * the next group), so that a replay or a follower whose handler gives
   * another reply stops at that op (NONDETERMINISTIC_APPLY) instead of
   * serving it. Default true; `false` only to measure what it costs.
   */
  readonly replyChecks?: boolean;
  /**
   * When this code's new module versions take effect: `auto` (the
   * default) at boot, or in a cluster once every live node runs code that
   * provides them; `hold` keeps the versions in force (this code applies
   * them as they were), so the previous build can still run on the journal
   * until the operator sets `auto` again.
   */
  readonly upgradeFinalization?: 'auto' | 'hold';
  /** Replay progress log interval. Default 1000 ms. */
  readonly progressIntervalMs?: number;
  /**
   * Maintenance: instead of booting, replay the whole journal from op 1 and
   * compare it with the newest snapshot (see `OnceRuntime.whenVerified`).
   * Nothing is written and nothing is served.
   */
  readonly verifyOnly?: boolean;
  /**
   * Which kind of node keeps the journal. Default: a single node on its own
   * LevelDB journal in `dataDir` (`singleNode` of `@once/engine`). Cluster
   * mode: `clusterNode({ natsServers, nodeId, clusterKeyFile, ... })` of
   * `@once/cluster` (a package of its own, installed only by an application
   * that runs a cluster): the journal on the cluster's NATS JetStream stream,
   * `dataDir` holding the node's applied copy and snapshots. With
   * `verifyOnly` the node is always a single one over the local journal.
   */
  readonly node?: OnceNodeFactory;
  /**
   * The application's `@Idempotent` HTTP routes: the longest key accepted,
   * and who the principal of a request is. Default: 255 characters, and
   * `request.user`.
   */
  readonly http?: OnceHttpOptions;
  /**
   * Removed: cluster mode is the `node` option, `node: clusterNode({...})`
   * from `@once/cluster`, with the same fields. Given, `OnceModule` refuses
   * to open (`CLUSTER_OPTION_MOVED`).
   *
   * @deprecated use `node: clusterNode({...})` from `@once/cluster`.
   */
  readonly cluster?: never;
}

export interface OnceModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  readonly useFactory: (...args: never[]) => OnceModuleOptions | Promise<OnceModuleOptions>;
  readonly inject?: Array<string | symbol | (abstract new (...args: never[]) => unknown)>;
}
