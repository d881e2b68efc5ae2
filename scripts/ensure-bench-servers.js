'use strict';
/* global console, process */

/**
 * Makes sure the servers of the bench's durable peers are on this machine:
 * `redis-server` (Redis 7) and PostgreSQL 15's `initdb` and `postgres`
 * (Debian's layout, /usr/lib/postgresql/15/bin). `npm run bench` and
 * `npm run test:e2e` run it first. Where one is missing and this process may
 * install Debian packages (root, apt-get), it runs `apt-get install -y`;
 * otherwise it exits non-zero saying how to install them. It never lets a run
 * go on without them: the bench's figures and its smoke test need both peers.
 *
 * ONCE_REDIS_SERVER_BIN and ONCE_PG_BIN_DIR point at other installations
 * (the bench reads the same variables).
 */

const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const PG_BIN_DIR = process.env.ONCE_PG_BIN_DIR || '/usr/lib/postgresql/15/bin';

const SERVERS = [
  {
    name: 'redis-server',
    packageName: 'redis-server',
    found() {
      const bin = process.env.ONCE_REDIS_SERVER_BIN || 'redis-server';
      const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
      return run.status === 0 ? run.stdout.trim() : undefined;
    },
    hint:
      '`apt-get install -y redis-server` (Debian, Ubuntu), or Redis 7 from https://redis.io ' +
      'on PATH (or ONCE_REDIS_SERVER_BIN set to its redis-server)',
  },
  {
    name: 'PostgreSQL 15',
    packageName: 'postgresql-15',
    found() {
      if (!existsSync(join(PG_BIN_DIR, 'initdb'))) return undefined;
      const run = spawnSync(join(PG_BIN_DIR, 'postgres'), ['--version'], { encoding: 'utf8' });
      return run.status === 0 ? run.stdout.trim() : undefined;
    },
    hint:
      '`apt-get install -y postgresql-15` (Debian 12), or PostgreSQL 15 with ONCE_PG_BIN_DIR ' +
      'set to the directory of its initdb and postgres',
  },
];

function canInstall() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return false;
  return spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

function aptInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const args = ['install', '-y', '--no-install-recommends', ...packages];
  console.log(`ensure-bench-servers: apt-get ${args.join(' ')}`);
  if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status === 0) return;
  // A fresh machine may have no package lists yet.
  spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
  spawnSync('apt-get', args, { stdio: 'inherit', env });
}

function main() {
  let missing = SERVERS.filter((server) => {
    const version = server.found();
    if (version) console.log(`ensure-bench-servers: ${version}`);
    return !version;
  });
  if (missing.length === 0) return;
  if (canInstall()) {
    aptInstall(missing.map((server) => server.packageName));
    missing = missing.filter((server) => {
      const version = server.found();
      if (version) console.log(`ensure-bench-servers: installed ${version}`);
      return !version;
    });
    if (missing.length === 0) return;
  }
  for (const server of missing) {
    console.error(
      `ensure-bench-servers: ${server.name} is missing${canInstall() ? ' and apt-get could not install it' : ' and cannot be installed here (not root, or no apt-get)'}; install it with ${server.hint}`,
    );
  }
  process.exit(1);
}

main();
