import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { freePorts } from '@once/testing';
import { ServerChild } from './server-child';

/** The binary the bench runs; `scripts/ensure-bench-servers.js` reads the same variable. */
const REDIS_SERVER_BIN = process.env.ONCE_REDIS_SERVER_BIN || 'redis-server';
const INSTALL_HINT =
  'run `node scripts/ensure-bench-servers.js` as root, or `apt-get install -y redis-server` ' +
  '(Debian, Ubuntu), or put Redis 7 on PATH (or set ONCE_REDIS_SERVER_BIN to its redis-server)';
const READY = /Ready to accept connections/;
const READY_TIMEOUT_MS = 30_000;

/**
 * A `redis-server` child as durable as Redis gets: every write appended to
 * its AOF and fsynced before the reply (`appendonly yes`, `appendfsync
 * always`), no RDB snapshots, its files in `dir` (under the bench's work
 * directory: the journal's disk, never a tmpfs), listening on a free port of
 * 127.0.0.1 only. Killed with the bench if the bench fails.
 */
export class RedisServerProcess {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
    /** `redis-server --version`. */
    readonly version: string,
  ) {}

  /** Starts the server; throws, saying how to install it, when `redis-server` is missing. */
  static async start(dir: string): Promise<RedisServerProcess> {
    const probe = spawnSync(REDIS_SERVER_BIN, ['--version'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      throw new Error(
        `the bench's Redis peer needs redis-server, and ${REDIS_SERVER_BIN} does not run: ${INSTALL_HINT}`,
      );
    }
    await mkdir(dir, { recursive: true });
    const [port] = await freePorts(1);
    const child = ServerChild.spawnProgram(REDIS_SERVER_BIN, [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
      '--logfile',
      '',
    ]);
    try {
      await child.waitForLog(READY, READY_TIMEOUT_MS);
    } catch (error) {
      await child.kill();
      throw error;
    }
    return new RedisServerProcess(child, port, probe.stdout.trim());
  }

  /** SIGKILLs the server: its files go with the work directory, nothing needs flushing. */
  stop(): Promise<void> {
    return this.child.kill();
  }
}
