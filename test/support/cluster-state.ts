import { createHash } from 'node:crypto';
import { JournalStore } from '@once/journal/internal';
import { type OnceCluster, eventually } from '@once/testing';

/** What one node's data directory holds once the node stopped gracefully. */
export interface StoppedNodeState {
  /** The node's index in the cluster. */
  readonly node: number;
  /** The op of its newest snapshot. */
  readonly op: number;
  /** The highest op of its local copy of the journal. */
  readonly lastOp: number;
  /** The newest snapshot's bytes. */
  readonly payload: Buffer;
}

/** Options of {@link expectSameStateEverywhere}. */
export interface SameStateOptions {
  /** Start every node again afterwards and wait for a leader (the spec goes on). Default true. */
  readonly restart?: boolean;
  /** Bound of each wait (a leader, every node at the op, a quiet leader), ms. Default 60 000. */
  readonly timeoutMs?: number;
}

/**
 * The end of every cluster scenario: every node holds the same state at the
 * same op, compared byte for byte, not just the same balances.
 *
 * Clients must have stopped writing. Nodes that are down are started first
 * (from their own data directories, so this also checks that they catch
 * up). Then the leader's commit is read once it stopped moving (a client's
 * disconnect is journaled a moment later), every node is awaited at that
 * op, and every node is stopped gracefully, the followers first so none of
 * them takes the lease over (a takeover journals an entry of its own): a
 * graceful stop writes a snapshot at the node's commit op. Each data
 * directory is then opened and its newest snapshot compared.
 *
 * Returns the states (all equal) after restarting the cluster unless told not to.
 */
export async function expectSameStateEverywhere(
  cluster: OnceCluster,
  options: SameStateOptions = {},
): Promise<StoppedNodeState[]> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const down = cluster.nodes.flatMap((node, index) => (node.running ? [] : [index]));
  await Promise.all(down.map((index) => cluster.restart(index)));
  const leader = await cluster.leader(timeoutMs).catch(async (error: Error) => {
    throw new Error(`${error.message}${await clusterReport(cluster)}`);
  });
  const op = await quietCommit(cluster, leader, timeoutMs);
  await cluster.appliedEverywhere(op, timeoutMs).catch(async (error: Error) => {
    throw new Error(`${error.message}${await clusterReport(cluster)}`);
  });

  const followers = cluster.nodes.map((_, index) => index).filter((index) => index !== leader);
  const codes = await Promise.all(followers.map((index) => cluster.nodes[index].stop()));
  codes.push(await cluster.nodes[leader].stop());
  expect(codes).toEqual(cluster.nodes.map(() => 0));

  const states: StoppedNodeState[] = [];
  for (const [index, node] of cluster.nodes.entries()) {
    states.push(await stoppedState(index, node.dataDir));
  }
  const [first, ...others] = states;
  expect(first.op).toBeGreaterThanOrEqual(op);
  expect(first.lastOp).toBe(first.op);
  for (const other of others) {
    expect(summaryOf(other, first.payload)).toEqual({
      ...summaryOf(first, first.payload),
      node: other.node,
    });
  }

  if (options.restart ?? true) {
    await Promise.all(cluster.nodes.map((_, index) => cluster.restart(index)));
    await cluster.leader(timeoutMs);
  }
  return states;
}

/** Every node's PING body and last warnings, for a failure message. */
async function clusterReport(cluster: OnceCluster): Promise<string> {
  const pings = await Promise.all(cluster.nodes.map((_, index) => cluster.ping(index)));
  return cluster.nodes
    .map((node, index) => {
      const warnings = node.logs
        .split('\n')
        .filter((line) => /WARN|ERROR|term|lease/.test(line))
        .slice(-20);
      return `\n--- node ${index}: ${JSON.stringify(pings[index])}\n${warnings.join('\n')}`;
    })
    .join('');
}

/** The newest snapshot and the local journal's end of a stopped node's data directory. */
export async function stoppedState(node: number, dataDir: string): Promise<StoppedNodeState> {
  const store = await JournalStore.open(dataDir);
  try {
    const newest = (await store.listSnapshots())[0];
    if (!newest || !('payload' in newest)) {
      throw new Error(`node ${node} has no readable snapshot: ${JSON.stringify(newest)}`);
    }
    return { node, op: newest.op, lastOp: store.lastOp, payload: newest.payload };
  } finally {
    await store.close();
  }
}

/** What is compared of a state; the payload by digest and first differing byte, for a readable diff. */
function summaryOf(state: StoppedNodeState, reference: Buffer) {
  let firstDifference = -1;
  const length = Math.max(state.payload.length, reference.length);
  for (let offset = 0; offset < length && firstDifference < 0; offset++) {
    if (state.payload[offset] !== reference[offset]) firstDifference = offset;
  }
  return {
    node: state.node,
    op: state.op,
    lastOp: state.lastOp,
    bytes: state.payload.length,
    sha256: createHash('sha256').update(state.payload).digest('hex'),
    firstDifference,
  };
}

/**
 * The leader's commit once three PINGs in a row, a tenth of a second apart,
 * report the same op: what its clients' disconnects journaled has committed.
 */
async function quietCommit(
  cluster: OnceCluster,
  leader: number,
  timeoutMs: number,
): Promise<number> {
  const seen: number[] = [];
  await eventually(
    async () => {
      const ping = await cluster.ping(leader);
      if (!ping || ping.role !== 'leader') throw new Error(`node ${leader} no longer leads`);
      seen.push(ping.commit);
      if (seen.length >= 3 && seen.slice(-3).every((op) => op === ping.commit)) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return false;
    },
    `node ${leader}'s commit to stop moving (last seen ${seen.at(-1)})`,
    timeoutMs,
  );
  return seen.at(-1)!;
}
