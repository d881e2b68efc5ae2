import { OnceCluster, eventually } from '@once/testing';
import { DepositLoad } from '../support/cluster-load';
import { expectSameStateEverywhere } from '../support/cluster-state';
import { ClusterStream } from '../support/cluster-stream';
import { ADMIN_PASSWORD } from '../support/wire';

jest.setTimeout(240_000);

/**
 * The NATS server leading the journal's stream dies (SIGKILL) while clients
 * write, alone or together with the once leader: appends stall until
 * JetStream elects a new stream leader (seconds), then go on, with nothing
 * acknowledged lost and nothing applied twice.
 */
describe('given three NATS servers and three once nodes under client load', () => {
  let cluster: OnceCluster;
  let stream: ClusterStream;
  beforeAll(async () => {
    cluster = await OnceCluster.start({ env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD } });
    stream = await ClusterStream.open(cluster);
  });
  afterAll(async () => {
    await stream?.close();
    await cluster?.cleanup();
  });

  /** Starts NATS server `index` again and waits until the stream has a leader and every replica is current. */
  async function healNats(index: number): Promise<void> {
    await cluster.nats.restart(index);
    await stream.leader(true, 60_000);
  }

  // A scenario that failed half way leaves the next one a whole cluster.
  afterEach(async () => {
    for (const [index] of cluster.nats.names.entries()) {
      if (!cluster.nats.running(index)) await healNats(index);
    }
    for (const [index, node] of cluster.nodes.entries()) {
      if (!node.running) await cluster.restart(index);
    }
  });

  it('when the NATS stream leader is SIGKILLed, then writes resume after the election with nothing lost or doubled, and every node holds the same state', async () => {
    // Given clients pipelining deposits
    const streamLeader = await stream.leader();
    const load = await DepositLoad.start(cluster, 3, 150);

    // When the NATS server leading the stream is SIGKILLed
    await load.eachSettledAtLeast(30);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    await cluster.nats.kill(streamLeader);

    // Then every deposit commits exactly once, on a stream led by another server
    await load.expectExactlyOnce();
    const next = await stream.leader(false, 60_000);
    expect(next).not.toBe(streamLeader);
    await load.close();

    // And every node holds the same state, the killed server still down
    await expectSameStateEverywhere(cluster);
    await healNats(streamLeader);
  });

  it('when the NATS stream leader and the once leader are SIGKILLed together, then the clients go on at a new once leader with nothing lost or doubled, and every node holds the same state', async () => {
    // Given clients pipelining deposits
    const streamLeader = await stream.leader();
    const leader = await cluster.leader();
    const load = await DepositLoad.start(cluster, 3, 150);

    // When both leaders are SIGKILLed at once
    await load.eachSettledAtLeast(30);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    await Promise.all([cluster.nats.kill(streamLeader), cluster.kill(leader)]);

    // Then every deposit commits exactly once, through another once node
    await load.expectExactlyOnce();
    expect(await cluster.leader(60_000)).not.toBe(leader);
    await load.close();

    // And every node holds the same state, the killed server still down
    await expectSameStateEverywhere(cluster);
    await healNats(streamLeader);
  });

  it("when the NATS server holding a follower's read of the stream is SIGKILLed, then the follower reads on through another server while it is down", async () => {
    // Given clients writing, and followers reading the stream through consumers on NATS servers
    await cluster.leader();
    let hosts: number[] = [];
    await eventually(
      async () => (hosts = await stream.consumerHosts()).length === cluster.nodes.length - 1,
      'a stream consumer for each follower',
      30_000,
    );
    const load = await DepositLoad.start(cluster, 2, 150);

    // When the server holding one follower's consumer is SIGKILLed
    await load.eachSettledAtLeast(30);
    expect(load.leastUnsettled).toBeGreaterThan(0);
    const logsFrom = cluster.nodes.map((node) => node.logs.length);
    await cluster.nats.kill(hosts[0]);

    // Then every deposit commits once, and the followers apply all of it, the server still down
    await load.expectExactlyOnce();
    await load.close();
    const commit = (await cluster.ping(await cluster.leader(60_000)))!.commit;
    await cluster.appliedEverywhere(commit, 60_000);
    expect(cluster.nats.running(hosts[0])).toBe(false);
    const reread = cluster.nodes.filter((node, index) =>
      /reading it afresh/.test(node.logs.slice(logsFrom[index])),
    );
    expect(reread.length).toBeGreaterThan(0);

    await expectSameStateEverywhere(cluster);
    await healNats(hosts[0]);
  });
});
