import { type BenchContext } from './bench-context';
import { ClusterStand } from './cluster-stand';
import { runLoad } from './load-runner';
import { type NatsServers } from './nats-servers';
import { type ReplayReport } from './once-service';
import { type PingReply } from './ping-client';
import { sleep } from './sleep';
import { median } from './stats';

/** The follower restart figure and what it was measured on. */
export interface FollowerRestartFigures {
  /** Ops the cluster's journal was filled to (give or take the setup entries). */
  readonly targetOps: number;
  /** The leader's commit op when the follower was killed. */
  readonly journalOps: number;
  readonly snapshotEveryOps: number;
  /** Closed-loop fill rate through the leader (not a figure). */
  readonly fillRequestsPerSecond: number;
  /** The follower restarted. */
  readonly node: string;
  /** Spawn to the first PING that says ready at the leader's commit, per restart, ms. */
  readonly readyAfterMs: readonly number[];
  readonly medianReadyAfterMs: number;
  /** The local replay of the last restart (up to its local journal's end), when it logged one. */
  readonly replay: ReplayReport | undefined;
}

/** The follower restart runs on a cluster of its own, so its journal holds what the options say. */
export const RESTART_CLUSTER_NAME = 'bench-restart';
const SNAPSHOT_WAIT_MS = 300_000;
const SETTLE_POLL_MS = 100;
const SETTLE_TIMEOUT_MS = 600_000;

/**
 * A new cluster (same NATS servers, its own stream) with
 * ONCE_SNAPSHOT_EVERY_OPS at the restart interval is filled through its
 * leader to `restartOps` ops; once a follower has applied everything and
 * written its newest snapshot (less than the interval old), it is SIGKILLed
 * and started again, `restartRepeats` times: spawn to the first PING that
 * says ready with the leader's commit. The follower replays its local
 * journal after its snapshot, then copies whatever the stream holds beyond.
 */
export async function measureFollowerRestart(
  context: BenchContext,
  nats: NatsServers,
): Promise<FollowerRestartFigures> {
  const { options } = context;
  const stand = await ClusterStand.start(context, nats, {
    clusterName: RESTART_CLUSTER_NAME,
    nodes: 3,
    snapshotEveryOps: options.restartSnapshotEveryOps,
  });
  try {
    const leader = await stand.leader();
    const startOps = (await stand.ping(leader))?.commit ?? 0;
    // Each connection journals a REGISTER and a ledger.open before its deposits.
    const setupOps = 2 * options.connections;
    const requests = Math.max(options.connections, options.restartOps - startOps - setupOps);
    const fill = await runLoad('once', stand.port(leader), { kind: 'fixed', requests }, context);
    const follower = (leader + 1) % stand.size;
    const journalOps = await settledCommit(stand, leader, follower);
    context.log(
      `  filled ${journalOps} ops through node${leader + 1} at ${Math.round(fill.requestsPerSecond)} req/s; node${follower + 1} applied them`,
    );
    // Snapshots fall every `interval` applied ops, so the newest is less than that old.
    await stand
      .node(follower)
      .waitForSnapshot(journalOps - options.restartSnapshotEveryOps + 1, SNAPSHOT_WAIT_MS);

    const readyAfterMs: number[] = [];
    let replay: ReplayReport | undefined;
    for (let i = 0; i < options.restartRepeats; i++) {
      await stand.kill(follower);
      const target = (await stand.ping(leader))?.commit ?? journalOps;
      const restarted = await stand.restart(
        follower,
        (reply: PingReply) => reply.ready && reply.commit >= target,
      );
      readyAfterMs.push(restarted.readyAfterMs);
      replay = replayOf(() => restarted.replay);
    }
    const medianReadyAfterMs = median(readyAfterMs);
    context.log(
      `  follower restart (snapshot every ${options.restartSnapshotEveryOps}): ${Math.round(medianReadyAfterMs)} ms at ${journalOps} ops${replay ? `, replayed ${replay.totalEntries} local entries after snapshot op ${replay.snapshotOp}` : ''}`,
    );
    return {
      targetOps: options.restartOps,
      journalOps,
      snapshotEveryOps: options.restartSnapshotEveryOps,
      fillRequestsPerSecond: fill.requestsPerSecond,
      node: `node${follower + 1}`,
      readyAfterMs,
      medianReadyAfterMs,
      replay,
    };
  } finally {
    await stand.stop();
  }
}

/**
 * The leader's commit once it stays put (the load's connections journal a
 * few entries as they go) and the follower has applied up to it.
 */
async function settledCommit(
  stand: ClusterStand,
  leader: number,
  follower: number,
): Promise<number> {
  const deadlineMs = performance.now() + SETTLE_TIMEOUT_MS;
  let previous = -1;
  for (;;) {
    const leaderCommit = (await stand.ping(leader))?.commit ?? -1;
    const followerCommit = (await stand.ping(follower))?.commit ?? -1;
    if (leaderCommit === previous && followerCommit === leaderCommit) return leaderCommit;
    if (performance.now() > deadlineMs) {
      throw new Error(
        `the cluster did not settle: leader at ${leaderCommit}, follower at ${followerCommit}`,
      );
    }
    previous = leaderCommit;
    await sleep(SETTLE_POLL_MS);
  }
}

/** The replay a service logged, or undefined when it logged none in the expected form. */
function replayOf(read: () => ReplayReport): ReplayReport | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
