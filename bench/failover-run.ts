import { type BenchContext } from './bench-context';
import { CLUSTER_HOST, type ClusterStand } from './cluster-stand';
import { FailoverWriter } from './failover-writer';
import { pingUntil } from './ping-client';

/** One leader kill. */
export interface FailoverSample {
  /** The node killed (`node<n>`) and the one that committed next. */
  readonly killed: string;
  readonly nextLeader: string;
  /** SIGKILL of the leader to the first committed reply through another node, ms. */
  readonly failoverMs: number;
  /** Deposits the writer committed through the killed leader. */
  readonly writesBeforeKill: number;
  /** Connections the writer tried until one committed. */
  readonly attempts: number;
  /** Restart of the killed node until it had caught up with the leader, ms (not a figure). */
  readonly rejoinMs: number;
}

/** The writer is writing before the kill: this many deposits committed first. */
const WRITES_BEFORE_KILL = 50;
const ADMIN_USERNAME = 'admin';
const CATCH_UP_POLL_MS = 20;
const CATCH_UP_TIMEOUT_MS = 300_000;

/**
 * `failoverKills` times: a client writes through the leader; the leader is
 * SIGKILLed; the time from the kill to the first deposit committed through
 * another node is the failover (see {@link FailoverWriter}). Between kills
 * the killed node is started again and left to catch up with the new leader,
 * so every kill meets a whole cluster.
 */
export async function measureFailovers(
  context: BenchContext,
  stand: ClusterStand,
): Promise<FailoverSample[]> {
  const samples: FailoverSample[] = [];
  const ports = Array.from({ length: stand.size }, (_, index) => stand.port(index));
  for (let kill = 0; kill < context.options.failoverKills; kill++) {
    const leader = await stand.leader();
    const writer = await FailoverWriter.start({
      host: CLUSTER_HOST,
      ports,
      leaderIndex: leader,
      username: ADMIN_USERNAME,
      password: context.adminPassword,
      payloadBytes: context.options.payloadBytes,
    });
    await writer.whenCommitted(WRITES_BEFORE_KILL);
    const killedAtMs = performance.now();
    await stand.kill(leader);
    const next = await writer.failover;
    if (writer.lostAtMs !== undefined && writer.lostAtMs < killedAtMs) {
      throw new Error('the writer lost the leader before it was killed');
    }
    const failoverMs = next.atMs - killedAtMs;

    const rejoinStartMs = performance.now();
    await stand.restart(leader);
    const leaderCommit = (await stand.ping(next.nodeIndex))?.commit ?? 0;
    await pingUntil(
      CLUSTER_HOST,
      stand.port(leader),
      CATCH_UP_POLL_MS,
      CATCH_UP_TIMEOUT_MS,
      (reply) => reply.commit >= leaderCommit,
    );
    const rejoinMs = performance.now() - rejoinStartMs;
    samples.push({
      killed: `node${leader + 1}`,
      nextLeader: `node${next.nodeIndex + 1}`,
      failoverMs,
      writesBeforeKill: writer.committed,
      attempts: next.attempts,
      rejoinMs,
    });
    context.log(
      `  failover ${kill + 1}/${context.options.failoverKills}: node${leader + 1} killed, node${next.nodeIndex + 1} committed after ${(failoverMs / 1000).toFixed(2)} s (${next.attempts} tries); node${leader + 1} back in ${(rejoinMs / 1000).toFixed(1)} s`,
    );
  }
  return samples;
}
