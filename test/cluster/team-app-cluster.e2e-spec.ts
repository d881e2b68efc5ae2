import { join } from 'node:path';
import { randomClientId } from '@once/protocol';
import { OnceCluster, RawClient, outcomeOf, registrationOf } from '@once/testing';
import { TALLY_USERS } from '../fixtures/minimal-main/tally.module';

jest.setTimeout(240_000);

/** A team's main that picks `clusterNode({...})` of `@once/cluster` (docs/guides/cluster-mode.md). */
const TEAM_MAIN = join(__dirname, '../fixtures/cluster-team/tally-cluster.main.ts');

/** Registers alice on node `port` and adds one to `name`'s tally; resolves with the count. */
async function addOn(port: number, name: string): Promise<unknown> {
  const raw = await RawClient.connect(port);
  try {
    const client = randomClientId();
    const { epoch } = registrationOf(await raw.register(client, 'alice', TALLY_USERS.alice));
    return outcomeOf(await raw.command(client, epoch, 1, 'tally.add', { name }));
  } finally {
    raw.destroy();
  }
}

/**
 * The cluster mode of a team's own application, not the reference service:
 * its root module gives `OnceModule` the cluster node factory, and three of
 * its processes form a cluster that fails over.
 */
describe("given a team's app whose main gives OnceModule the cluster node factory, run as three nodes on one NATS server", () => {
  let cluster: OnceCluster;
  beforeAll(async () => {
    cluster = await OnceCluster.start({
      natsServers: 1,
      nodes: 3,
      replicas: 1,
      service: { entry: TEAM_MAIN },
    });
  });
  afterAll(() => cluster?.cleanup());

  it('then one node leads, the others follow it, and each says which cluster it joined', async () => {
    const leader = await cluster.leader();
    const pings = await Promise.all([0, 1, 2].map((index) => cluster.ping(index)));
    expect(pings.map((ping) => ping?.role).sort()).toEqual(['follower', 'follower', 'leader']);
    expect(pings[leader]).toMatchObject({ role: 'leader', node: expect.any(String) });
    for (const node of cluster.nodes) expect(node.logs).toMatch(/of cluster once/);
  });

  it('when the leader is killed after a command, then another node leads with the command applied, and a new command counts on from it', async () => {
    const first = await cluster.leader();
    expect(await addOn(cluster.nodes[first].port, 'bolts')).toEqual({
      ok: true,
      result: { count: 1 },
    });
    await cluster.kill(first);
    const second = await cluster.leader();
    expect(second).not.toBe(first);
    expect(await addOn(cluster.nodes[second].port, 'bolts')).toEqual({
      ok: true,
      result: { count: 2 },
    });
  });
});
