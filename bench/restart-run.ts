import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext } from './bench-context';
import { runLoad } from './load-runner';
import { OnceService, type ReplayReport } from './once-service';
import { median } from './stats';

/** Restart timings of one data directory. */
export interface RestartCase {
  readonly snapshotEveryOps: number;
  /** Ops in the journal at restart. */
  readonly journalOps: number;
  /** Spawn to first ready PING, per restart, ms. */
  readonly readyAfterMs: readonly number[];
  readonly medianReadyAfterMs: number;
  /** The replay of the last restart. */
  readonly replay: ReplayReport;
}

export interface RestartFigures {
  /** Ops each journal was filled to (give or take a few setup entries). */
  readonly targetOps: number;
  readonly withSnapshot: RestartCase;
  readonly withoutSnapshot: RestartCase;
}

const SNAPSHOT_WAIT_MS = 300_000;

/**
 * The restart figures: two data directories filled by load to about
 * `restartOps` ops, one with ONCE_SNAPSHOT_EVERY_OPS at its interval, one with 0
 * (journal only), each killed with SIGKILL and restarted `restartRepeats`
 * times, timed from spawn to the first PING that answers ready.
 */
export async function measureRestarts(context: BenchContext): Promise<RestartFigures> {
  const withSnapshot = await measureRestartCase(context, context.options.restartSnapshotEveryOps);
  const withoutSnapshot = await measureRestartCase(context, 0);
  return { targetOps: context.options.restartOps, withSnapshot, withoutSnapshot };
}

async function measureRestartCase(
  context: BenchContext,
  snapshotEveryOps: number,
): Promise<RestartCase> {
  const { options } = context;
  const root = join(context.workDir, `restart-${snapshotEveryOps}`);
  const serviceOptions = {
    build: context.build,
    dataDir: join(root, 'data'),
    adminPassword: context.adminPassword,
    snapshotEveryOps,
  };
  const label = snapshotEveryOps > 0 ? `snapshot every ${snapshotEveryOps}` : 'no snapshot';

  const filling = await OnceService.start(serviceOptions);
  try {
    // Each connection journals a REGISTER and a ledger.open before its deposits.
    const setupOps = 2 * options.connections;
    const requests = Math.max(
      options.connections,
      options.restartOps - filling.readyPing.commit - setupOps,
    );
    const fill = await runLoad('once', filling.port, { kind: 'fixed', requests }, context);
    const filledOps = await filling.commitOp();
    context.log(
      `  filled ${filledOps} ops (${label}) at ${Math.round(fill.requestsPerSecond)} req/s`,
    );
    if (snapshotEveryOps > 0) {
      // The engine snapshots whenever `every` ops passed since its last one,
      // so once synced, the newest snapshot is less than `every` ops old.
      await filling.waitForSnapshot(filledOps - snapshotEveryOps + 1, SNAPSHOT_WAIT_MS);
    }
  } finally {
    await filling.crash();
  }

  const readyAfterMs: number[] = [];
  let replay: ReplayReport | undefined;
  for (let i = 0; i < options.restartRepeats; i++) {
    const restarted = await OnceService.start(serviceOptions);
    await restarted.crash();
    readyAfterMs.push(restarted.readyAfterMs);
    replay = restarted.replay;
  }
  if (!replay) throw new Error('no restart was timed');
  // The journal's end at boot; the filling service may have journaled a few
  // entries (connections' releases) after its last PING.
  const journalOps = replay.snapshotOp + replay.totalEntries;
  const medianReadyAfterMs = median(readyAfterMs);
  context.log(
    `  restart (${label}): ${(medianReadyAfterMs / 1000).toFixed(2)} s, ${journalOps} ops, replayed ${replay.totalEntries} entries after snapshot op ${replay.snapshotOp}`,
  );
  await rm(root, { recursive: true, force: true });
  return { snapshotEveryOps, journalOps, readyAfterMs, medianReadyAfterMs, replay };
}
