import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EntryKind } from '@once/journal';
import { JournalStore } from '@once/journal/internal';
import { decodeManifest } from '@once/engine/internal';
import { OnceCluster, eventually } from '@once/testing';
import { LEDGER_CODE_VERSION_FILE } from '../fixtures/rolling-ledger/rolling-ledger.module';
import { DepositLoad, clusterClient } from '../support/cluster-load';
import { expectSameStateEverywhere } from '../support/cluster-state';
import { ADMIN_PASSWORD, accountName } from '../support/wire';

jest.setTimeout(420_000);

const ROLLING_LEDGER = {
  path: join(__dirname, '../fixtures/rolling-ledger/rolling-ledger.module.ts'),
  export: 'LedgerModule',
};

/** Deposits each load client pipelines while the cluster is upgraded node by node. */
const DEPOSITS_PER_CLIENT = 1500;

/** Deploys `version` of the ledger to node `index` (read when it next starts). */
async function deploy(cluster: OnceCluster, index: number, version: number): Promise<void> {
  const file = join(dirname(cluster.nodes[index].dataDir), LEDGER_CODE_VERSION_FILE);
  await writeFile(file, String(version));
}

/** Every MANIFEST a stopped node's local journal holds: its op and the ledger's version in it. */
async function manifests(dataDir: string): Promise<Array<{ op: number; ledger: number }>> {
  const journal = await JournalStore.open(dataDir);
  const found: Array<{ op: number; ledger: number }> = [];
  try {
    for await (const batch of journal.readBatches(journal.firstOp, 512)) {
      for (const entry of batch) {
        if (entry.kind !== EntryKind.Manifest) continue;
        found.push({ op: entry.op, ledger: decodeManifest(entry.body).states.get('ledger') ?? 0 });
      }
    }
  } finally {
    await journal.close();
  }
  return found;
}

/**
 * A rolling upgrade: three nodes run version 1 of a module under client
 * load; each is SIGKILLed and started again with version 2, the followers
 * first and the leader last. The new version takes effect once, when every
 * live node runs it, and never before: until then the upgraded nodes apply
 * the entries under version 1, and every node holds the same bytes.
 */
describe('given three once nodes running version 1 of the ledger under pipelined deposits', () => {
  let cluster: OnceCluster;
  beforeAll(async () => {
    cluster = await OnceCluster.start({
      service: { modules: [ROLLING_LEDGER], users: { admin: ADMIN_PASSWORD } },
    });
  });
  afterAll(() => cluster?.cleanup());

  it('when each node is SIGKILLed and restarted with version 2, the leader last, then nothing is lost or doubled, version 2 is journaled once after the last version-1 node went, and every node holds the same snapshot', async () => {
    // Given clients pipelining deposits, and a probe of which rule applies
    const probe = await clusterClient(cluster);
    const probeAccount = accountName('probe');
    await probe.client.command('ledger.open', { account: probeAccount });
    const rule = async () =>
      (
        await probe.client.command<{ balance: number; rule?: number }>('ledger.deposit', {
          account: probeAccount,
          amount: 1,
        })
      ).rule ?? 1;
    expect(await rule()).toBe(1);
    const load = await DepositLoad.start(cluster, 2, DEPOSITS_PER_CLIENT);

    // When the followers, then the leader, are upgraded one by one
    const leader = await cluster.leader(60_000);
    const order = [0, 1, 2].filter((index) => index !== leader).concat(leader);
    for (const [step, index] of order.entries()) {
      await deploy(cluster, index, 2);
      await cluster.kill(index);
      if (step < order.length - 1) {
        // Then, while the leader still runs version 1, deposits keep the old rule
        // (that no version-2 leader finalises past a live version-1 node is
        // code-finalization.spec's)
        expect(await rule()).toBe(1);
      }
      await cluster.restart(index);
    }

    // Then version 2 takes effect once every node runs it
    await eventually(async () => (await rule()) === 2, 'deposits applied under version 2', 120_000);
    await load.expectExactlyOnce();
    await load.close();
    await probe.client.close();

    // And every node holds the same state, with version 2 journaled exactly once
    const states = await expectSameStateEverywhere(cluster, { restart: false, timeoutMs: 120_000 });
    for (const state of states) {
      const found = await manifests(cluster.nodes[state.node].dataDir);
      expect(found.filter(({ ledger }) => ledger === 2)).toHaveLength(1);
      expect(found[0].ledger).toBe(1);
      expect(found.map(({ ledger }) => ledger)).toEqual(
        [...found.map(({ ledger }) => ledger)].sort(),
      );
    }

    // When a node is started again with version 1 after the finalisation
    const stale = order[0];
    await deploy(cluster, stale, 1);
    await expect(cluster.restart(stale)).rejects.toThrow(/exited .*before/);

    // Then it stops at the version entry, exits 1 and says why, having served nothing
    expect(await cluster.nodes[stale].exited()).toBe(1);
    const logs = cluster.nodes[stale].logs;
    expect(logs).toContain('MODULE_VERSION_UNSUPPORTED');
    expect(logs).toMatch(/"ledger" at version 2, and this code provides version 1/);
  });
});
