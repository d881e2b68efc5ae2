'use strict';
/* global console, process */

/**
 * Makes sure `nats-server` (the NATS JetStream server the cluster suites run)
 * is on this machine before the e2e tests (`npm run test:e2e`). Where it is
 * missing and this process may install Debian packages (root, apt-get), it
 * runs `apt-get install -y nats-server`. It never fails the run: where the
 * server cannot be installed it says how to, and the cluster suites then fail
 * with that message (they are never skipped); the single-node suites need no
 * NATS.
 */

const { spawnSync } = require('node:child_process');

const INSTALL_HINT =
  'install it with `apt-get install -y nats-server` (Debian, Ubuntu), or from https://nats.io, ' +
  'and put it on PATH (or set ONCE_NATS_SERVER_BIN to its path)';

function found() {
  const bin = process.env.ONCE_NATS_SERVER_BIN || 'nats-server';
  const run = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

function canInstall() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return false;
  return spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

function main() {
  const version = found();
  if (version) return console.log(`ensure-nats-server: ${version}`);
  if (!canInstall()) {
    console.warn(
      `ensure-nats-server: nats-server is missing and cannot be installed here (not root, or no apt-get): ${INSTALL_HINT}`,
    );
    return;
  }
  console.log('ensure-nats-server: nats-server is missing; apt-get install -y nats-server');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let install = spawnSync('apt-get', ['install', '-y', 'nats-server'], { stdio: 'inherit', env });
  if (install.status !== 0) {
    // A fresh machine may have no package lists yet.
    spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    install = spawnSync('apt-get', ['install', '-y', 'nats-server'], { stdio: 'inherit', env });
  }
  const after = found();
  if (after) console.log(`ensure-nats-server: installed ${after}`);
  else console.warn(`ensure-nats-server: apt-get could not install nats-server: ${INSTALL_HINT}`);
}

main();
