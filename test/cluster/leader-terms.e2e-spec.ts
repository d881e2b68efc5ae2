import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClusterNodeOptions } from '@once/cluster';
import { ClusterNode } from '@once/cluster/internal';
import { type EngineLogger } from '@once/engine/internal';
import { NatsCluster, eventually } from '@once/testing';
import { sampleModules } from '../../libs/engine/src/__fixtures__/sample-modules.fixture';
import { freshClusterName } from '../support/jetstream-journal-harness';
import { TEST_CLUSTER_KEY } from '../support/test-cluster-key';

jest.setTimeout(180_000);

/** A node's log lines, in order, as text. */
class LogLines implements EngineLogger {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(String(message));
  }
  warn(message: unknown): void {
    this.lines.push(String(message));
  }
  error(message: unknown): void {
    this.lines.push(String(message));
  }
  has(pattern: RegExp): boolean {
    return this.lines.some((line) => pattern.test(line));
  }
}

/**
 * Leader terms name leaderships in the log, in events and in PING: they must
 * never repeat in one cluster, and a node on its way out must not take one.
 */
describe('given a NATS server and cluster nodes in this process', () => {
  let nats: NatsCluster;
  let root: string;
  const open: ClusterNode[] = [];
  beforeAll(async () => {
    nats = await NatsCluster.start({ servers: 1 });
    root = await mkdtemp(join(tmpdir(), 'once-leader-terms-'));
  });
  afterEach(async () => {
    for (const node of open.splice(0).reverse()) await node.stop({ snapshot: false });
  });
  afterAll(async () => {
    await nats?.cleanup();
    await rm(root, { recursive: true, force: true });
  });

  function base(
    clusterName: string,
  ): Omit<ClusterNodeOptions, 'dataDir' | 'nodeId' | 'commands' | 'states'> {
    return { natsServers: nats.urls, clusterKeys: [TEST_CLUSTER_KEY], clusterName, replicas: 1 };
  }

  async function startNode(
    options: Omit<ClusterNodeOptions, 'commands' | 'states'>,
  ): Promise<ClusterNode> {
    const modules = sampleModules();
    const node = await ClusterNode.open({
      ...options,
      commands: modules.commands,
      states: modules.states,
    });
    open.push(node);
    await node.start();
    return node;
  }

  it('when every node of a cluster stopped (the lease key gone with them) and a node starts again, then its term comes after every earlier term', async () => {
    const clusterName = freshClusterName();
    const dataDir = await mkdtemp(join(root, 'a-'));
    const terms: number[] = [];
    for (let run = 0; run < 2; run++) {
      const node = await startNode({ ...base(clusterName), dataDir, nodeId: 'a' });
      await eventually(() => node.writable, `node a leads (run ${run + 1})`);
      terms.push(node.term!.number);
      open.splice(open.indexOf(node), 1);
      await node.stop();
    }
    expect(terms[1]).toBeGreaterThan(terms[0]);
  });

  it('when a follower is stopping and the leader releases the lease meanwhile, then the follower does not take it', async () => {
    const clusterName = freshClusterName();
    const leader = await startNode({
      ...base(clusterName),
      dataDir: await mkdtemp(join(root, 'a-')),
      nodeId: 'a',
    });
    await eventually(() => leader.writable, 'node a leads');
    // The follower's stop is held while its local journal writes a copied
    // group: it stops following only once that write is done.
    let hold = false;
    let releaseHold!: () => void;
    const held = new Promise<void>((resolve) => (releaseHold = resolve));
    let writeHeld = false;
    const logs = new LogLines();
    const follower = await startNode({
      ...base(clusterName),
      dataDir: await mkdtemp(join(root, 'b-')),
      nodeId: 'b',
      logger: logs,
      journal: {
        beforeWrite: async () => {
          if (!hold) return;
          writeHeld = true;
          await held;
        },
      },
    });
    expect(follower.view).toMatchObject({ node: 'b', role: 'follower' });

    hold = true;
    await leader.engine.journalSystemCommand('kv.put', { key: 'k', value: 'v' });
    await eventually(() => writeHeld, "b's copy of the group is being written");
    const stopping = follower.stop();
    open.splice(open.indexOf(leader), 1);
    await leader.stop();
    await eventually(
      () => logs.has(/took the cluster lease|leaves it to the others/),
      'b took the free lease or left it',
    );
    releaseHold();
    await stopping;
    open.splice(open.indexOf(follower), 1);

    expect(logs.lines.filter((line) => /took the cluster lease/.test(line))).toEqual([]);
    expect(logs.has(/the cluster lease is free; this node is stopping/)).toBe(true);
  });
});
