import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { type ClusterNodeOptions } from '@once/cluster';
import { ClusterNode } from '@once/cluster/internal';
import { type ApplyOutcome } from '@once/engine/internal';
import { NatsCluster, eventually } from '@once/testing';
import {
  draftsFor,
  history,
  replyKey,
} from '../../libs/engine/src/__fixtures__/random-history.fixture';
import { sampleModules } from '../../libs/engine/src/__fixtures__/sample-modules.fixture';
import { freshClusterName } from '../support/jetstream-journal-harness';
import { TEST_CLUSTER_KEY } from '../support/test-cluster-key';

jest.setTimeout(300_000);

/**
 * The replay property in cluster mode: a random history applied live on
 * the leader reaches every node through the stream, and each node (one
 * following along, one started afterwards on an empty directory) holds the
 * same state, byte for byte, having produced the same replies, byte for byte.
 */
describe('given a NATS server and cluster nodes in this process', () => {
  let nats: NatsCluster;
  let root: string;
  beforeAll(async () => {
    nats = await NatsCluster.start({ servers: 1 });
    root = await mkdtemp(join(tmpdir(), 'once-cluster-property-'));
  });
  afterAll(async () => {
    await nats?.cleanup();
    await rm(root, { recursive: true, force: true });
  });

  async function startNode(
    base: Omit<ClusterNodeOptions, 'dataDir' | 'nodeId' | 'commands' | 'states'>,
    nodeId: string,
    replies: string[],
  ): Promise<ClusterNode> {
    const modules = sampleModules();
    const node = await ClusterNode.open({
      ...base,
      dataDir: await mkdtemp(join(root, `${nodeId}-`)),
      nodeId,
      commands: modules.commands,
      states: modules.states,
    });
    node.engine.onApplied((outcome: ApplyOutcome) => replies.push(replyKey(outcome)));
    await node.start();
    return node;
  }

  it('when a random history is applied on the leader, then a follower and a node started afterwards reach the same state and replies, byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (chunks) => {
        const clock = { now: 1_800_000_000_000_000_000n };
        const base = {
          natsServers: nats.urls,
          clusterKeys: [TEST_CLUSTER_KEY],
          clusterName: freshClusterName(),
          replicas: 1,
          settings: { clientsMax: 3, ring: 2 },
          stream: { clock: () => clock.now },
        };
        const nodes: ClusterNode[] = [];
        try {
          const leaderReplies: string[] = [];
          const leader = await startNode(base, 'a', leaderReplies);
          nodes.push(leader);
          await eventually(() => leader.writable, 'node a leads', 20_000);
          const followerReplies: string[] = [];
          const follower = await startNode(base, 'b', followerReplies);
          nodes.push(follower);
          expect(follower.view).toMatchObject({ node: 'b', role: 'follower' });

          for (const chunk of chunks) {
            const drafts = await draftsFor(leader.engine, chunk, clock);
            await Promise.all(
              drafts.map(
                (draft) =>
                  new Promise<void>((resolve, reject) =>
                    leader.engine.submit(draft, () => resolve(), reject),
                  ),
              ),
            );
          }
          const lastOp = leader.engine.commitOp;
          await eventually(() => follower.engine.commitOp === lastOp, `b at op ${lastOp}`);
          const lateReplies: string[] = [];
          const late = await startNode(base, 'c', lateReplies);
          nodes.push(late);
          await eventually(() => late.engine.commitOp === lastOp, `c at op ${lastOp}`);

          const state = leader.engine.captureSnapshot();
          expect(follower.engine.captureSnapshot().equals(state)).toBe(true);
          expect(late.engine.captureSnapshot().equals(state)).toBe(true);
          expect(followerReplies).toEqual(leaderReplies);
          expect(lateReplies).toEqual(leaderReplies);
        } finally {
          for (const node of nodes.reverse()) await node.stop({ snapshot: false });
        }
      }),
      { numRuns: 25 },
    );
  });
});
