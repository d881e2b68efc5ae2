'use strict';
/* global console, process */

// Writes libs/journal/src/__fixtures__/format-2: a data directory of format 2,
// made by the reference service of a build of format 2 (the last commit before
// keyed state), for the tests of the format 2 → 3 upgrade.
//
//   git worktree add ../once-format-2 <a commit of format 2>
//   cp -a node_modules ../once-format-2/ && (cd ../once-format-2 && npm run build)
//   node scripts/make-format-2-fixture.js ../once-format-2 libs/journal/src/__fixtures__/format-2
//
// What the directory holds (the tests rely on it):
// - before its one snapshot (written by a graceful stop): accounts alice,
//   bob and carol opened, deposits, and a transfer with reference
//   `rent-march`; the ledger's snapshot picture is then
//   `{accounts, references}`, the whole-object state of that build;
// - after it (a restart, then a SIGKILL): account dave opened, deposits, and
//   a transfer with reference `refund-april`, journal entries only.
// Balances the old build acknowledged: alice 90, bob 60, carol 10, dave 5.
const { cp, rm, stat } = require('node:fs/promises');
const { join, resolve } = require('node:path');

const PASSWORD = 'format-2-fixture';

async function main() {
  const [rootArgument, outArgument] = process.argv.slice(2);
  if (!rootArgument || !outArgument) {
    throw new Error('usage: node scripts/make-format-2-fixture.js <built format-2 root> <out dir>');
  }
  const root = resolve(rootArgument);
  const out = resolve(outArgument);
  if (await stat(out).catch(() => undefined)) throw new Error(`${out} exists`);
  const testing = require(join(root, 'node_modules/@once/testing'));
  const { randomClientId } = require(join(root, 'node_modules/@once/protocol'));
  const { ServiceProcess, RawClient, registrationOf, outcomeOf } = testing;

  const service = await ServiceProcess.start({
    root,
    // Only the graceful stop writes a snapshot: it falls exactly between the two phases.
    env: { ONCE_ADMIN_PASSWORD: PASSWORD, ONCE_SNAPSHOT_EVERY_OPS: '0' },
  });
  try {
    const expectOk = async (frame) => {
      const outcome = outcomeOf(await frame);
      if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome)}`);
      return outcome;
    };
    const session = async () => {
      const client = randomClientId();
      const raw = await RawClient.connect(service.port);
      const { epoch } = registrationOf(await raw.register(client, 'admin', PASSWORD));
      let request = 0;
      const command = (pattern, data) =>
        expectOk(raw.command(client, epoch, ++request, pattern, data));
      return { raw, command };
    };

    const before = await session();
    for (const account of ['alice', 'bob', 'carol']) {
      await before.command('ledger.open', { account });
    }
    await before.command('ledger.deposit', { account: 'alice', amount: 100 });
    await before.command('ledger.deposit', { account: 'bob', amount: 50 });
    await before.command('ledger.deposit', { account: 'carol', amount: 7 });
    await before.command('ledger.transfer', {
      from: 'alice',
      to: 'bob',
      amount: 30,
      reference: 'rent-march',
    });
    before.raw.destroy();
    const code = await service.stop();
    if (code !== 0) throw new Error(`the graceful stop exited ${code}`);
    if (!/snapshot at op \d+ written/.test(service.logs)) {
      throw new Error(`no snapshot at the graceful stop:\n${service.logs.slice(-2000)}`);
    }

    await service.restart();
    const after = await session();
    await after.command('ledger.open', { account: 'dave' });
    await after.command('ledger.deposit', { account: 'dave', amount: 5 });
    await after.command('ledger.deposit', { account: 'carol', amount: 3 });
    await after.command('ledger.transfer', {
      from: 'bob',
      to: 'alice',
      amount: 20,
      reference: 'refund-april',
    });
    after.raw.destroy();
    await service.crash();

    await cp(service.dataDir, out, { recursive: true });
    // LevelDB writes these again at each open; the lock and logs are no data.
    for (const file of ['LOCK', 'LOG', 'LOG.old']) {
      await rm(join(out, 'leveldb', file), { force: true });
    }
    console.log(service.logs);
    console.log(`format-2 fixture written to ${out}`);
  } finally {
    await service.cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
