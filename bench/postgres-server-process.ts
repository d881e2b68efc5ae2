import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { freePorts } from '@once/testing';
import { type ProgramUser } from './bench-children';
import { ServerChild } from './server-child';

/** Debian's PostgreSQL 15; `scripts/ensure-bench-servers.js` reads the same variable. */
const PG_BIN_DIR = process.env.ONCE_PG_BIN_DIR || '/usr/lib/postgresql/15/bin';
const INSTALL_HINT =
  'run `node scripts/ensure-bench-servers.js` as root, or `apt-get install -y postgresql-15` ' +
  '(Debian 12), or set ONCE_PG_BIN_DIR to the directory of PostgreSQL 15 initdb and postgres';
/** PostgreSQL refuses to run as root: a bench running as root runs it as this user. */
const PG_OS_USER = 'postgres';
const READY = /database system is ready to accept connections/;
const READY_TIMEOUT_MS = 60_000;
const SEARCH_PATH_MODE = 0o011;

/**
 * A PostgreSQL 15 server of its own: `initdb` on a fresh directory under the
 * bench's work directory (the journal's disk), then `postgres` on it with
 * every commit flushed before it is acknowledged (`fsync=on`,
 * `synchronous_commit=on`, the defaults, set explicitly), listening on a free
 * port of 127.0.0.1 only, trust authentication for the bench's user
 * `postgres`. When the bench runs as root, both run as the OS user
 * `postgres` (the data directory is chowned to it, and the directories above
 * it inside `reachableFrom` gain search permission). Should that user not
 * reach `reachableFrom` itself (a clone under a private directory such as
 * `/root`: its modes are the owner's business, not the bench's), the server
 * gets a directory of its own under `/var/tmp` instead, removed at stop.
 */
export class PostgresServerProcess {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
    /** `postgres --version`. */
    readonly version: string,
    /** The server's data directory. */
    readonly dataDir: string,
    /** A directory made outside the caller's, removed at {@link stop}. */
    private readonly ownDir: string | undefined,
  ) {}

  /** Connection settings for `pg`: user `postgres`, database `postgres`. */
  get connection(): { host: string; port: number; user: string; database: string } {
    return { host: '127.0.0.1', port: this.port, user: 'postgres', database: 'postgres' };
  }

  /**
   * Initialises `dir` and starts the server on it; throws, saying how to
   * install it, when PostgreSQL 15 is missing.
   */
  static async start(dir: string, reachableFrom: string): Promise<PostgresServerProcess> {
    const postgres = join(PG_BIN_DIR, 'postgres');
    const probe = spawnSync(postgres, ['--version'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      throw new Error(
        `the bench's PostgreSQL peer needs PostgreSQL 15, and ${postgres} does not run: ${INSTALL_HINT}`,
      );
    }
    const placed = await placeFor(dir, reachableFrom);
    const { user, ownDir } = placed;
    const dataDir = join(placed.dir, 'data');
    const initdb = spawnSync(
      join(PG_BIN_DIR, 'initdb'),
      ['-D', dataDir, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'],
      { encoding: 'utf8', ...user },
    );
    if (initdb.status !== 0) {
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
      throw new Error(`initdb -D ${dataDir} failed:\n${initdb.stdout}\n${initdb.stderr}`);
    }
    const [port] = await freePorts(1);
    const child = ServerChild.spawnProgram(
      postgres,
      [
        '-D',
        dataDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `port=${port}`,
        '-c',
        'unix_socket_directories=',
        '-c',
        'fsync=on',
        '-c',
        'synchronous_commit=on',
        '-c',
        'max_connections=100',
      ],
      user,
    );
    try {
      await child.waitForLog(READY, READY_TIMEOUT_MS);
    } catch (error) {
      await child.kill();
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
      throw error;
    }
    return new PostgresServerProcess(child, port, probe.stdout.trim(), dataDir, ownDir);
  }

  /**
   * Immediate shutdown (SIGQUIT: the postmaster ends its backends and exits
   * without a checkpoint); the files go with the work directory, or with
   * the server's own directory when it has one.
   */
  async stop(): Promise<void> {
    await this.child.kill('SIGQUIT');
    if (this.ownDir) await rm(this.ownDir, { recursive: true, force: true });
  }
}

/** Where the server's files go, and as whom it runs. */
interface Placement {
  readonly dir: string;
  readonly user: ProgramUser | undefined;
  /** Set when `dir` is a directory of the server's own, outside the caller's. */
  readonly ownDir: string | undefined;
}

/**
 * As the bench's own user: `dir`. As root: `dir` run by the `postgres` OS
 * user, owner of `dir`, with search permission on the directories from
 * `reachableFrom` down to `dir` (the bench's temporary directory is
 * private); or, when that user cannot reach `reachableFrom` at all, a fresh
 * directory under `/var/tmp` (on the disk of the root file system, as a
 * clone usually is).
 */
async function placeFor(dir: string, reachableFrom: string): Promise<Placement> {
  if (process.getuid?.() !== 0) {
    await mkdir(dir, { recursive: true });
    return { dir, user: undefined, ownDir: undefined };
  }
  const id = (flag: string) => spawnSync('id', [flag, PG_OS_USER], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no OS user ${PG_OS_USER} to run it as: ${INSTALL_HINT}`,
    );
  }
  const ids = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  // From `reachableFrom` down the bench grants search permission; above it, it may not.
  if (!canEnter(dirname(reachableFrom), ids)) {
    const ownDir = await mkdtemp(join('/var/tmp', 'once-bench-pg-'));
    await chown(ownDir, ids.uid, ids.gid);
    return { dir: ownDir, user: { ...ids, cwd: ownDir }, ownDir };
  }
  await mkdir(dir, { recursive: true });
  await chown(dir, ids.uid, ids.gid);
  for (let parent = dirname(dir); !relative(reachableFrom, parent).startsWith('..');) {
    await chmod(parent, ((await stat(parent)).mode & 0o7777) | SEARCH_PATH_MODE);
    if (parent === reachableFrom) break;
    parent = dirname(parent);
  }
  return { dir, user: { ...ids, cwd: dir }, ownDir: undefined };
}

/** Whether the OS user `ids` can enter `dir` (every directory above it searchable to it). */
function canEnter(dir: string, ids: { uid: number; gid: number }): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { ...ids, cwd: '/' }).status === 0;
}
