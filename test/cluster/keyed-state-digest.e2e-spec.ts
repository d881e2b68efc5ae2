import { type OnceClient } from '@once/sdk';
import { OnceCluster, eventually } from '@once/testing';
import { expectSameStateEverywhere } from '../support/cluster-state';
import {
  type KeyedDataDir,
  expectRecordsMatchSnapshot,
  ledgerAccounts,
  ledgerReferences,
  readKeyedDataDir,
} from '../support/keyed-data-dir';
import {
  LedgerWorkload,
  connectLedgerClients,
  runSeed,
  seededRandom,
} from '../support/ledger-workload';
import { ADMIN_PASSWORD } from '../support/wire';

jest.setTimeout(600_000);

const SEED = runSeed();

/**
 * Keyed state in cluster mode: every node writes its own keyed records, with
 * its own snapshots, from the entries it applies (the leader from its
 * commits, the followers from the stream). After ledger load, during which
 * a follower and then the leader are SIGKILLed and boot from their own
 * records, every node stopped
 * at the same op holds the same snapshot, byte for byte, whose keyed marker
 * (the digest over every record, and the counts) is the same everywhere and
 * equals the digest recomputed from the records each node has on disk.
 */
describe(`given three NATS servers and three once nodes snapshotting every 50 ops (seed ${SEED})`, () => {
  let cluster: OnceCluster;
  let clients: OnceClient[] = [];
  beforeAll(async () => {
    cluster = await OnceCluster.start({
      env: {
        ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ONCE_SNAPSHOT_EVERY_OPS: '50',
        ONCE_KEYED_CACHE_ENTRIES: '16',
      },
    });
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close({ force: true })));
    await cluster?.cleanup();
  });

  it('when clients run ledger load while a follower, then the leader, is SIGKILLed and restarted, then every node stopped at one op holds the same snapshot bytes and the same keyed digest, equal to its records on disk', async () => {
    const leader = await cluster.leader();
    const follower = (leader + 1) % cluster.nodes.length;
    clients = await connectLedgerClients({ nodes: cluster.addresses }, 3);
    const load = await LedgerWorkload.start(clients, {
      commandsPerClient: 800,
      random: seededRandom(SEED),
      tag: 'cluster',
    });

    // A follower dies under load after it wrote snapshots of its own, and comes back from them.
    await load.settledMore(150);
    await eventually(
      () => /snapshot at op \d+ written/.test(cluster.nodes[follower].logs),
      `a snapshot written by follower ${follower}`,
    );
    expect(load.running).toBe(true);
    await cluster.kill(follower);
    await load.settledMore(100);
    const followerMark = cluster.nodes[follower].logs.length;
    // Held back while the follower restarts, so the load is still running for the leader's kill.
    load.pause();
    await cluster.restart(follower);
    load.resume();

    // Then the leader dies under load: a follower takes over from the records it wrote itself.
    await load.settledMore(100);
    expect(load.running).toBe(true);
    await cluster.kill(leader);
    await load.settledMore(100);
    const leaderMark = cluster.nodes[leader].logs.length;
    load.pause();
    await cluster.restart(leader);
    expect(load.running).toBe(true);
    load.resume();
    await load.done;
    expect(load.anomalies).toEqual([]);
    expect(await cluster.leader()).not.toBe(leader);
    expect(cluster.nodes[follower].logs.slice(followerMark)).toMatch(/snapshot restored at op \d+/);
    expect(cluster.nodes[leader].logs.slice(leaderMark)).toMatch(/snapshot restored at op \d+/);
    await load.expectBalances(clients[0]);
    await Promise.all(clients.map((client) => client.close()));
    clients = [];

    // Every node stopped at the leader's last op: the same snapshot bytes (compared there).
    const states = await expectSameStateEverywhere(cluster, { restart: false });
    const dirs: KeyedDataDir[] = [];
    for (const node of cluster.nodes) dirs.push(await readKeyedDataDir(node.dataDir));

    const [first, ...others] = dirs;
    for (const [index, dir] of dirs.entries()) {
      expect(dir.snapshotOp).toBe(states[index].op);
      // Each node's records on disk are what its own marker says.
      expectRecordsMatchSnapshot(dir);
      expect(ledgerAccounts(dir)).toEqual(Object.fromEntries(load.expected));
      expect(ledgerReferences(dir)).toEqual([...load.references].sort());
    }
    expect(first.snapshot.keyed?.counts).toEqual(
      expect.arrayContaining([
        ['ledger/accounts', load.expected.size],
        ['ledger/references', load.references.size],
      ]),
    );
    for (const other of others) {
      expect(other.snapshotOp).toBe(first.snapshotOp);
      expect(other.snapshot.keyed).toEqual(first.snapshot.keyed);
      expect(other.payload.equals(first.payload)).toBe(true);
    }
  });
});
