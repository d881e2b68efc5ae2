import { type ModuleMetadata } from '@nestjs/common';
import { type GenesisCommand } from '@once/engine';
import { type JournalStoreOptions } from '@once/journal';

export interface OnceModuleOptions {
  /** LevelDB data directory, one process at a time. */
  readonly dataDir: string;
  /** Client table capacity (sessions). Default 8192. */
  readonly clientsMax?: number;
  /** Replies cached per session, and requests in flight per session. Default 8. */
  readonly ring?: number;
  /** Sessions idle longer than this (journal time) expire. Default 0 (never). */
  readonly sessionTtlMs?: number;
  /** Snapshot every this many ops (0: only at graceful stop). Default 100000. */
  readonly snapshotEveryOps?: number;
  /** Commands journaled once, in order, when the data directory is new. */
  readonly genesis?: readonly GenesisCommand[];
  /** Low-level journal options (fault injection in tests, clock). */
  readonly journal?: JournalStoreOptions;
  /** Replay progress log interval. Default 1000 ms. */
  readonly progressIntervalMs?: number;
  /**
   * Maintenance: instead of booting, replay the whole journal from op 1 and
   * compare it with the newest snapshot (see `OnceRuntime.whenVerified`).
   * Nothing is written and nothing is served.
   */
  readonly verifyOnly?: boolean;
}

export interface OnceModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  readonly useFactory: (...args: never[]) => OnceModuleOptions | Promise<OnceModuleOptions>;
  readonly inject?: Array<string | symbol | (abstract new (...args: never[]) => unknown)>;
}
