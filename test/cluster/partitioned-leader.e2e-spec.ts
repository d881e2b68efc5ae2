import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Status, randomClientId } from '@once/protocol';
import { type NodePing, OnceCluster, RawClient, eventually } from '@once/testing';
import { DepositLoad } from '../support/cluster-load';
import { expectSameStateEverywhere } from '../support/cluster-state';
import { ClusterStream } from '../support/cluster-stream';
import { ADMIN_PASSWORD, registerBytes, runServiceToExit } from '../support/wire';

jest.setTimeout(240_000);

/**
 * The once leader loses its link to NATS while the other nodes keep theirs:
 * its lease runs out, another node takes over, and what the old leader still
 * had on its way to the stream is refused once the link heals, since every
 * append names the stream sequence it expects to follow.
 */
describe('given three NATS servers and three once nodes, each node on its own links to NATS', () => {
  let cluster: OnceCluster;
  let stream: ClusterStream;
  beforeAll(async () => {
    cluster = await OnceCluster.start({
      env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD },
      proxiedNats: true,
    });
    stream = await ClusterStream.open(cluster);
  });
  afterAll(async () => {
    await stream?.close();
    await cluster?.cleanup();
  });
  // A scenario that failed half way leaves the next one a whole cluster.
  afterEach(async () => {
    for (const [index, node] of cluster.nodes.entries()) {
      for (const link of cluster.natsLinks(index)) link.resume();
      if (!node.running) await cluster.restart(index);
    }
  });

  /** Every node's PING body, in node order. */
  const pings = (): Promise<(NodePing | undefined)[]> =>
    Promise.all(cluster.nodes.map((_, index) => cluster.ping(index)));

  /**
   * The scenario of both tests: clients write through the leader, the
   * leader's NATS links stall, another node takes over and serves every
   * deposit, `whileCutOff` runs, the links heal; then the old leader follows
   * the new one, the stream holds no append of the old term after the new
   * one began, and every node holds the same state.
   */
  async function cutOffLeaderUnderLoad(
    whileCutOff: (old: number, logsFrom: number) => Promise<void>,
  ): Promise<void> {
    // Given clients pipelining deposits through the leader
    const old = await cluster.leader();
    const load = await DepositLoad.start(cluster, 2, 200);

    // When the leader's links to every NATS server stop carrying anything
    await load.eachSettledAtLeast(30);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    const logsFrom = cluster.nodes[old].logs.length;
    for (const link of cluster.natsLinks(old)) link.stall();

    // Then another node leads, named by the third, and the old one no longer says it leads
    let next = -1;
    await eventually(
      async () => {
        const seen = await pings();
        const leaders = seen.flatMap((ping, index) => (ping?.role === 'leader' ? [index] : []));
        if (leaders.length !== 1 || leaders[0] === old) return false;
        next = leaders[0];
        const third = seen.findIndex((_, index) => index !== old && index !== next);
        return seen[third]?.leader === `127.0.0.1:${cluster.nodes[next].port}`;
      },
      'a new leader while the old one is cut off',
      60_000,
    );

    // And every deposit commits exactly once while the old leader is still cut off
    await load.expectExactlyOnce();
    for (const { client } of load.clients) {
      expect(client.node).not.toEqual({ host: '127.0.0.1', port: cluster.nodes[old].port });
    }
    const cutOff = await RawClient.connect(cluster.nodes[old].port);
    try {
      cutOff.write(registerBytes({ client: randomClientId() }));
      const refused = await cutOff.next(10_000);
      expect(refused.header.status).toBe(Status.NotReady);
    } finally {
      cutOff.destroy();
    }
    await load.close();
    await whileCutOff(old, logsFrom);
    const heldToNats = cluster
      .natsLinks(old)
      .reduce((sum, link) => sum + link.heldBytes('toServer'), 0);
    expect(heldToNats).toBeGreaterThan(0);

    // When the links heal, and what the old leader sent meanwhile reaches NATS
    for (const link of cluster.natsLinks(old)) link.resume();

    // Then the old leader applies what the new one committed
    const commit = (await cluster.ping(next))!.commit;
    await cluster.appliedEverywhere(commit, 60_000);
    expect((await cluster.ping(old))?.role).toBe('follower');

    // And in the stream, each term's writer wrote one unbroken run: none after the next began
    const writers = (await stream.writerRuns()).map((run) => run.writer);
    expect(new Set(writers).size).toBe(writers.length);

    await expectSameStateEverywhere(cluster);
  }

  it('when the leader is cut off from NATS under load, then another node leads, the old one stops serving writes, and after healing none of its appends follows the new term', async () => {
    await cutOffLeaderUnderLoad(() => Promise.resolve());
  });

  it('when the leader is cut off long enough that its first attempt to follow the stream fails, then, healed, it still follows the new leader', async () => {
    await cutOffLeaderUnderLoad(async (old, logsFrom) => {
      // The attempt gives up after the stream's leader wait (30 s by default)
      await eventually(
        () => /cluster role switch failed/.test(cluster.nodes[old].logs.slice(logsFrom)),
        "the old leader's failed attempt to follow the stream",
        90_000,
      );
    });
  });
});

describe('given the reference service', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'once-cluster-settings-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('when ONCE_NATS_SERVERS is set without ONCE_NODE_ID, then it exits 2 naming both settings', async () => {
    const { code, output } = await runServiceToExit({
      ONCE_NATS_SERVERS: 'nats://127.0.0.1:4222',
      ONCE_DATA_DIR: join(root, 'no-node-id'),
    });
    expect(code).toBe(2);
    expect(output).toMatch(/invalid setting: .*ONCE_NATS_SERVERS.*needs ONCE_NODE_ID/);
  });
});
