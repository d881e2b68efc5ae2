import { type LoggerService } from '@nestjs/common';
import { type Engine, type ReplayVerification } from '@once/engine/internal';
import { type JournalStore } from '@once/journal/internal';
import { type NestHost, type OnceAppModule, OWN_HOST, appRootModule } from './app-module';
import { assertCurrentFormat, assertDataDirExists, openFailure } from './stopped-data-dir';

export interface ReplayOptions {
  readonly dataDir: string;
  readonly app: OnceAppModule;
  /** The app's own Nest factory and runtime class (see `loadAppModule`). Default: the CLI's. */
  readonly host?: NestHost;
  /** Receives Nest's and the runtime's log. Default: silent. */
  readonly logger?: LoggerService | false;
  /** Called with the op reached and the op to reach, about ten times a second. */
  readonly onProgress?: (commitOp: number, lastOp: number) => void;
  /** Progress poll interval. Default 100 ms. */
  readonly progressIntervalMs?: number;
}

/**
 * A stopped data directory replayed from op 1 through the service's own
 * modules (`verifyOnly`: nothing served, nothing journaled), the node left
 * open at the journal's end for reading (sessions, a snapshot). Close it.
 *
 * The replay is `verifyReplay`'s, so every entry's checksum is checked and
 * the state at the newest snapshot is compared with it on the way: reading
 * sessions verifies the directory too.
 */
export interface ReplayedDataDir {
  readonly engine: Engine;
  readonly journal: JournalStore;
  readonly verification: ReplayVerification;
  close(): Promise<void>;
}

/** Replays `dataDir` (see {@link ReplayedDataDir}); rejects on a corrupt journal or a directory in use. */
export async function replayDataDir(options: ReplayOptions): Promise<ReplayedDataDir> {
  assertDataDirExists(options.dataDir);
  await assertCurrentFormat(options.dataDir);
  const host = options.host ?? OWN_HOST;
  let app;
  try {
    app = await host.NestFactory.createApplicationContext(
      appRootModule(options.app, { dataDir: options.dataDir, verifyOnly: true }, host),
      { logger: options.logger ?? false, abortOnError: false },
    );
  } catch (error) {
    throw openFailure(options.dataDir, error);
  }
  const context = app;
  try {
    const runtime = context.get(host.OnceRuntime);
    const { engine, journal } = runtime;
    const report = (): void => options.onProgress?.(engine.commitOp, journal.lastOp);
    report();
    const timer = setInterval(report, options.progressIntervalMs ?? 100);
    let verification: ReplayVerification;
    try {
      verification = await runtime.whenVerified();
    } finally {
      clearInterval(timer);
    }
    report();
    return { engine, journal, verification, close: () => context.close() };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/** The line `--verify` and `once verify` print for a verification. */
export function verificationText(result: ReplayVerification): string {
  const snapshot =
    result.snapshotOp === undefined
      ? 'no snapshot to compare with'
      : `the replay at op ${result.snapshotOp} ${result.snapshotMatches ? 'equals' : 'DIFFERS FROM'} the snapshot taken there`;
  const from =
    result.startSnapshotOp === undefined
      ? 'from op 1'
      : `from op ${result.fromOp} (after the snapshot at op ${result.startSnapshotOp}: the journal was compacted, op 1 is gone)`;
  const records =
    result.recordsOp === undefined
      ? ''
      : `; the keyed records on disk ${result.recordsMatch ? 'are' : 'are NOT'} those of the snapshot at op ${result.recordsOp}`;
  return `${result.entries} journal entries replayed ${from}, all intact; ${snapshot}${records}`;
}

/** Whether a verification found nothing wrong: the replay and the records on disk agree with the snapshots. */
export function verificationPassed(result: ReplayVerification): boolean {
  return result.snapshotMatches !== false && result.recordsMatch !== false;
}
