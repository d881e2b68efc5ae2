#!/usr/bin/env node
'use strict';
/* global console, process, __dirname */
/**
 * The lowest end of the NestJS versions once supports, tested: installs the
 * lowest versions the peer ranges of @once/framework allow (@nestjs/common,
 * core and microservices; @nestjs/testing and platform-express, which the
 * specs use, at core's) into node_modules/.cache/once-nest-lowest, and runs
 * against them the NestJS internals spec, the unit specs of the packages that
 * use NestJS and the in-process NestJS e2e suites (see RUNS). The highest end
 * tested is the normal suite's: the versions package-lock.json pins.
 *
 * It also checks that every package's peer range on @nestjs/common, core and
 * microservices is the same `^lowest`, and that the NestJS transport guide
 * states the tested range, from the lowest to the version package-lock.json
 * pins. (The ranges have no upper bound within 11.x: with one, npm refuses to
 * install once beside a NestJS released after it, ERESOLVE.)
 *
 * Needs the npm registry the first time (the install is kept, keyed by the
 * versions). `node scripts/nest-range.js --check-ranges` checks the ranges only.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
/** The NestJS packages whose lowest versions are installed: the peers, and what the specs use. */
const PEERS = ['@nestjs/common', '@nestjs/core', '@nestjs/microservices'];
const ALONGSIDE = ['@nestjs/testing', '@nestjs/platform-express'];
/** Where the supported versions are stated. */
const GUIDE = 'docs/guides/nestjs-transport.md';
/**
 * What runs at the lowest end, by jest configuration: the adapter's spec and the unit specs
 * of the packages that use NestJS; the NestJS e2e suites that run in this process (a child
 * process would load the repository's own NestJS) and need no build.
 */
const RUNS = [
  {
    config: () => readJson(join(ROOT, 'package.json')).jest,
    paths: ['libs/framework/', 'libs/gateway/', 'libs/nest-client/', 'libs/users/'],
  },
  {
    config: () => readJson(join(ROOT, 'test/jest-e2e.json')),
    paths: [
      'test/nest/transport-contract/server',
      'test/nest/create-microservice',
      'test/nest/start-up-paths',
      'test/nest/tls-options',
    ],
  },
  {
    // Its nest-tcp rows test NestJS's own TCP client, the yardstick once's is held to; the
    // older NestJS's differs (it reports no disconnection when the server goes away).
    config: () => readJson(join(ROOT, 'test/jest-e2e.json')),
    paths: ['test/nest/transport-contract/client'],
    args: ['--testNamePattern', '^(?!given a ClientProxy of the nest-tcp transport)'],
  },
];

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function fail(message) {
  console.error(`nest-range: ${message}`);
  process.exit(1);
}

/** The lowest version of a `^lowest` range, or undefined. */
function lowestOf(range) {
  return /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
}

/**
 * The lowest version of each peer, from @once/framework's ranges, checked against every
 * package's and against the guide, which states the tested range: from the lowest to the
 * version package-lock.json pins.
 */
function checkedRanges() {
  const lock = readJson(join(ROOT, 'package-lock.json'));
  const framework = readJson(join(ROOT, 'libs/framework/package.json')).peerDependencies;
  const guide = readFileSync(join(ROOT, GUIDE), 'utf8');
  const lowest = {};
  const problems = [];
  for (const name of PEERS) {
    const low = lowestOf(framework[name] ?? '');
    const locked = lock.packages[`node_modules/${name}`]?.version;
    if (!low) {
      problems.push(`libs/framework peer ${name} is "${framework[name]}", not "^lowest"`);
      continue;
    }
    if (!guide.includes(`${low} to ${locked}`)) {
      problems.push(`${GUIDE} does not state ${name}'s tested "${low} to ${locked}"`);
    }
    lowest[name] = low;
  }
  for (const dir of readdirSync(join(ROOT, 'libs'))) {
    const path = join(ROOT, 'libs', dir, 'package.json');
    if (!existsSync(path)) continue;
    const peers = readJson(path).peerDependencies ?? {};
    for (const name of PEERS) {
      if (peers[name] !== undefined && peers[name] !== framework[name]) {
        problems.push(
          `libs/${dir} peer ${name} is "${peers[name]}", not the tested "${framework[name]}"`,
        );
      }
    }
  }
  if (problems.length > 0) fail(`peer ranges out of step:\n  ${problems.join('\n  ')}`);
  return lowest;
}

/** Installs `versions` (name → exact version) into a directory of their own, once. */
function install(versions) {
  const key = Object.entries(versions)
    .map(([name, version]) => `${name.replace('@nestjs/', '')}-${version}`)
    .join('_');
  const dir = join(ROOT, 'node_modules/.cache/once-nest-lowest', key);
  const installed = () =>
    Object.entries(versions).every(([name, version]) => {
      const path = join(dir, 'node_modules', name, 'package.json');
      return existsSync(path) && readJson(path).version === version;
    });
  if (installed()) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'once-nest-lowest', private: true, dependencies: versions }, null, 2),
  );
  console.log(`nest-range: installing ${JSON.stringify(versions)} into ${dir}`);
  // Peers (rxjs, reflect-metadata) are not installed: they resolve to the repository's own,
  // one copy for the specs and for NestJS. No scripts run: NestJS's packages have none to run.
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--legacy-peer-deps',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--workspaces=false',
    ],
    { cwd: dir, stdio: 'inherit' },
  );
  if (!installed()) fail(`npm did not install ${JSON.stringify(versions)} into ${dir}`);
  return dir;
}

function main() {
  const lowest = checkedRanges();
  if (process.argv.includes('--check-ranges')) {
    console.log(`nest-range: peer ranges in step, lowest ${JSON.stringify(lowest)}`);
    return;
  }
  const versions = { ...lowest };
  for (const name of ALONGSIDE) versions[name] = lowest['@nestjs/core'];
  const dir = install(versions);
  const nest = [...PEERS, ...ALONGSIDE].map((name) => name.replace('@nestjs/', '')).join('|');
  for (const { config, paths, args = [] } of RUNS) {
    const base = config();
    const jestConfig = {
      ...base,
      rootDir: ROOT,
      moduleNameMapper: {
        // Every @nestjs/* require, from the specs, the sources and NestJS itself, to the install.
        [`^@nestjs/(${nest})((/.*)?)$`]: `${dir}/node_modules/@nestjs/$1$2`,
        ...base.moduleNameMapper,
      },
    };
    const run = spawnSync(
      process.execPath,
      [
        require.resolve('jest/bin/jest', { paths: [ROOT] }),
        '--config',
        JSON.stringify(jestConfig),
        ...args,
        ...paths,
      ],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, ONCE_NEST_EXPECTED_VERSIONS: JSON.stringify(lowest) },
      },
    );
    if (run.status !== 0) {
      fail(`${paths.join(', ')} fail on the lowest NestJS ${JSON.stringify(versions)}`);
    }
  }
  console.log(`nest-range: the specs pass on the lowest NestJS ${JSON.stringify(versions)}`);
}

main();
