import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
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
 * it inside `reachableFrom` gain search permission).
 */
export class PostgresServerProcess {
  private constructor(
    private readonly child: ServerChild,
    readonly port: number,
    /** `postgres --version`. */
    readonly version: string,
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
    await mkdir(dir, { recursive: true });
    const user = await runAsUser(dir, reachableFrom);
    const dataDir = join(dir, 'data');
    const initdb = spawnSync(
      join(PG_BIN_DIR, 'initdb'),
      ['-D', dataDir, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'],
      { encoding: 'utf8', ...user },
    );
    if (initdb.status !== 0) {
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
      throw error;
    }
    return new PostgresServerProcess(child, port, probe.stdout.trim());
  }

  /**
   * Immediate shutdown (SIGQUIT: the postmaster ends its backends and exits
   * without a checkpoint); the files go with the work directory.
   */
  stop(): Promise<void> {
    return this.child.kill('SIGQUIT');
  }
}

/**
 * As root: the `postgres` OS user, owner of `dir`, with search permission on
 * the directories from `reachableFrom` down to `dir` (the bench's temporary
 * directory is private). Otherwise the bench's own user.
 */
async function runAsUser(dir: string, reachableFrom: string): Promise<ProgramUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, PG_OS_USER], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no OS user ${PG_OS_USER} to run it as: ${INSTALL_HINT}`,
    );
  }
  const user = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  await chown(dir, user.uid, user.gid);
  for (let parent = dirname(dir); !relative(reachableFrom, parent).startsWith('..');) {
    await chmod(parent, ((await stat(parent)).mode & 0o7777) | SEARCH_PATH_MODE);
    if (parent === reachableFrom) break;
    parent = dirname(parent);
  }
  return user;
}
