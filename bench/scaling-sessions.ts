import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { OnceNode } from '@once/engine/internal';
import { EntryKind } from '@once/journal';
import { type EntryDraft } from '@once/journal/internal';
import { checksum } from '@once/protocol/internal';
import { randomClientId } from '@once/protocol';
import { positiveInteger } from './cli-numbers';

/** The JSON line scaling-sessions prints: one size of the memory series. */
export interface ScalingSessionsReport {
  readonly sessions: number;
  readonly heapUsedBeforeBytes: number;
  readonly heapUsedAfterBytes: number;
  /** V8 heap growth per session. */
  readonly bytesPerSession: number;
  /** Growth of memory outside the V8 heap (Buffers) per session. */
  readonly externalBytesPerSession: number;
  /** The node's snapshot (no modules: the client table, settings, a header), as it is written. */
  readonly snapshotBytes: number;
  /** The client table's part of it. */
  readonly tableSnapshotBytes: number;
  /** Capturing it (encoding the whole state on the main thread). */
  readonly snapshotCaptureMs: number;
  /** Journaling and applying the REGISTERs. */
  readonly registerMs: number;
}

/** The user the sessions belong to (any id: the engine does not authenticate). */
const USER_ID = 1;
const GC_ROUNDS = 3;

/**
 * Child entry, run with --expose-gc: `bytes_per_idle_session`, and the
 * memory series of `--scaling` at one size. Boots a OnceNode (no modules, snapshots off) on a directory of the
 * bench, measures the heap after full GCs, journals `--sessions` REGISTER
 * drafts shaped like the gateway's through `engine.submit` (real synced
 * journal, table capacity exactly `--sessions`, so none is evicted), waits
 * until all applied, measures again, then captures the node's snapshot and
 * reports its size: what a snapshot of that many sessions writes to disk and
 * reads back at boot.
 */
async function main(): Promise<void> {
  const { sessions, dir } = new Command()
    .requiredOption('--dir <dir>', 'a directory for the data directory (removed afterwards)')
    .requiredOption('--sessions <count>', 'sessions to register', positiveInteger)
    .parse(process.argv)
    .opts<{ sessions: number; dir: string }>();
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');

  try {
    const node = await OnceNode.open({
      dataDir: join(dir, 'data'),
      commands: [],
      states: [],
      settings: { clientsMax: sessions },
      snapshotEveryOps: 0,
    });
    await node.start();
    const before = await settledMemory(gc);

    const registerStartMs = performance.now();
    await new Promise<void>((resolve, reject) => {
      let applied = 0;
      for (let i = 0; i < sessions; i++) {
        node.engine.submit(registerDraft(), (outcome) => {
          if (!outcome.registered) reject(new Error(`REGISTER at op ${outcome.entry.op} failed`));
          if (++applied === sessions) resolve();
        });
      }
    });
    const registerMs = performance.now() - registerStartMs;
    const after = await settledMemory(gc);
    if (node.engine.table.size !== sessions) {
      throw new Error(`${node.engine.table.size} sessions in the table, expected ${sessions}`);
    }

    const captureStartMs = performance.now();
    const snapshot = node.engine.captureSnapshot();
    const snapshotCaptureMs = performance.now() - captureStartMs;
    const report: ScalingSessionsReport = {
      sessions,
      heapUsedBeforeBytes: before.heapUsed,
      heapUsedAfterBytes: after.heapUsed,
      bytesPerSession: (after.heapUsed - before.heapUsed) / sessions,
      externalBytesPerSession: (after.external - before.external) / sessions,
      snapshotBytes: snapshot.length,
      tableSnapshotBytes: node.engine.table.snapshot().length,
      snapshotCaptureMs,
      registerMs,
    };
    await node.stop({ snapshot: false });
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A REGISTER draft as the gateway journals it: body checksum of the credentials, empty body. */
function registerDraft(): EntryDraft {
  return {
    kind: EntryKind.Register,
    client: randomClientId(),
    session: 0,
    request: 0,
    userId: USER_ID,
    requestChecksum: checksum(Buffer.from('{"username":"admin","password":"bench"}')),
    body: Buffer.alloc(0),
  };
}

/** Memory after the event loop drained and full GCs ran, so only live objects count. */
async function settledMemory(gc: () => void): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < GC_ROUNDS; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `scaling-sessions: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
