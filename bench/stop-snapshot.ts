import { type BuildSnapshot, serviceMain } from './build-snapshot';
import { ServerChild } from './server-child';

/** What the service logged while it wrote its stop snapshot. */
export interface StopSnapshot {
  /** The op the snapshot was taken at (the journal's end). */
  readonly op: number;
  readonly bytes: number;
  /** Spawn to exit: the boot's full replay, the snapshot's write, the close. */
  readonly elapsedMs: number;
}

const READY = /ready at op (\d+)/;
const SNAPSHOT_WRITTEN = /snapshot at op (\d+) written \((\d+) bytes/;
const BOOT_TIMEOUT_MS = 900_000;

/**
 * Boots the reference service on `dataDir` and stops it gracefully
 * (SIGTERM), which is how an operator restarts it: the service drains and
 * writes a snapshot at the journal's end, so its next boot replays nothing.
 * Snapshots are otherwise off (ONCE_SNAPSHOT_EVERY_OPS=0) and the port is any
 * free one; ONCE_* variables of the bench's shell are not passed on.
 */
export async function writeStopSnapshot(
  build: BuildSnapshot,
  dataDir: string,
  adminPassword: string,
): Promise<StopSnapshot> {
  const inherited = Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith('ONCE_'))
      .map((name) => [name, undefined]),
  );
  const child = ServerChild.spawn(build, serviceMain(build), [], {
    env: {
      ...inherited,
      ONCE_HOST: '127.0.0.1',
      ONCE_PORT: '0',
      ONCE_DATA_DIR: dataDir,
      ONCE_ADMIN_PASSWORD: adminPassword,
      ONCE_SNAPSHOT_EVERY_OPS: '0',
      ONCE_LOG_FORMAT: 'text',
    },
  });
  try {
    const readyOp = Number((await child.waitForLog(READY, BOOT_TIMEOUT_MS))[1]);
    await child.kill('SIGTERM');
    const written = SNAPSHOT_WRITTEN.exec(child.logs);
    if (!written || Number(written[1]) < readyOp) {
      throw new Error(`no stop snapshot at op ${readyOp} or later:\n${child.tail()}`);
    }
    return {
      op: Number(written[1]),
      bytes: Number(written[2]),
      elapsedMs: performance.now() - child.spawnedAtMs,
    };
  } finally {
    await child.kill('SIGKILL');
  }
}
