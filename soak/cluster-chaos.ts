import { setTimeout as delay } from 'node:timers/promises';
import { type OnceCluster, type TcpProxy } from '@once/testing';
import { type AcknowledgementWatch } from './acknowledgement-watch';
import { type ChaosCounts, type SoakChaos } from './chaos';
import { ChaosPauses, draw } from './chaos-pauses';
import { type RangeMs } from './cli-values';
import { faultLinks } from './link-faults';
import { type SeededRandom } from './seeded-random';

/** One SIGKILL of the cluster's leader, and how the cluster got over it. */
export interface Failover {
  /** The node killed while it led. */
  readonly killed: string;
  /** The node that led next: another one, or the killed one when it came back in time to take the lease again. */
  readonly next: string;
  /** Kill → a node says (PING) that it leads. */
  readonly takeoverMs: number;
  /** Kill → the first transfer acknowledged after that: a commit through the next leader. */
  readonly firstCommitMs: number;
}

/** What the chaos did to a cluster. */
export interface ClusterChaosCounts extends ChaosCounts {
  /** Of `kills`: SIGKILLs of the node that led at that moment. */
  leaderKills: number;
  /** Of `kills`: SIGKILLs of a follower. */
  followerKills: number;
  /** One per leader kill, in kill order. */
  readonly failovers: Failover[];
}

/**
 * How long a killed leader stays dead: around the lease's TTL (3 s), so that
 * most of the time another node takes over, and now and then the killed one
 * comes back in time to take its lease again under a new term.
 */
const LEADER_DOWNTIME_MS: RangeMs = { minMs: 1_000, maxMs: 5_000 };
/** How long a killed follower stays dead. */
const FOLLOWER_DOWNTIME_MS: RangeMs = { minMs: 0, maxMs: 500 };
/** Every this many kills, the victim is a follower rather than the leader (kills 1 and 2 are of leaders). */
const FOLLOWER_KILL_EVERY = 3;
/**
 * Bound of a failover (a node leads, then a transfer is acknowledged) and of
 * the wait for a leader before a kill. Elections take seconds; past this, a
 * node that never recovers fails the run rather than hanging it.
 */
const RECOVERY_BOUND_MS = 60_000;
/** How often the nodes are asked who leads while a failover is timed. */
const PING_EVERY_MS = 25;

/**
 * The chaos of a soak run against a cluster, two independent loops until
 * `stop()`. One SIGKILLs the node that leads at random intervals (every
 * third time a follower instead), times the failover as the clients see it,
 * and restarts the node on its data directory and port after a delay. The
 * other cuts or stalls the links through the proxies in front of the nodes,
 * all of them or one.
 */
export class ClusterChaos implements SoakChaos<ClusterChaosCounts> {
  readonly counts: ClusterChaosCounts = {
    kills: 0,
    leaderKills: 0,
    followerKills: 0,
    cuts: 0,
    stalls: 0,
    restartMs: [],
    failovers: [],
    unexpectedExits: 0,
  };
  private readonly pauses = new ChaosPauses();
  readonly running: Promise<void>;

  constructor(
    private readonly cluster: OnceCluster,
    private readonly proxies: readonly TcpProxy[],
    private readonly watch: AcknowledgementWatch,
    random: SeededRandom,
    killEveryMs: RangeMs,
    faultEveryMs: RangeMs,
  ) {
    this.running = Promise.all([
      this.killLoop(random.fork(1), killEveryMs),
      faultLinks(proxies, random.fork(2), faultEveryMs, this.pauses, this.counts),
    ]).then(() => undefined);
    // Observed by the run (a race with its duration) and by stop(); never left unhandled.
    this.running.catch(() => undefined);
  }

  async stop(): Promise<ClusterChaosCounts> {
    this.pauses.stop();
    await this.running;
    for (const proxy of this.proxies) proxy.resume();
    await this.restartDeadNodes();
    return this.counts;
  }

  private async killLoop(random: SeededRandom, everyMs: RangeMs): Promise<void> {
    while (await this.pauses.wait(random, everyMs)) {
      await this.restartDeadNodes();
      const leader = await this.cluster.leader(RECOVERY_BOUND_MS);
      if (++this.counts.kills % FOLLOWER_KILL_EVERY === 0) {
        const followers = this.cluster.nodes.flatMap((_, index) =>
          index === leader ? [] : [index],
        );
        await this.killFollower(followers[random.integer(0, followers.length - 1)], random);
      } else {
        await this.killLeader(leader, random);
      }
    }
  }

  private async killLeader(index: number, random: SeededRandom): Promise<void> {
    const killedAtMs = performance.now();
    await this.cluster.kill(index);
    this.counts.leaderKills++;
    const failover = this.timeFailover(index, killedAtMs);
    // Observed below; a rejection while the node restarts is not left unhandled meanwhile.
    failover.catch(() => undefined);
    await delay(draw(random, LEADER_DOWNTIME_MS));
    await this.cluster.restart(index);
    this.counts.restartMs.push(Math.round(performance.now() - killedAtMs));
    this.counts.failovers.push(await failover);
  }

  private async killFollower(index: number, random: SeededRandom): Promise<void> {
    const killedAtMs = performance.now();
    await this.cluster.kill(index);
    this.counts.followerKills++;
    await delay(draw(random, FOLLOWER_DOWNTIME_MS));
    await this.cluster.restart(index);
    this.counts.restartMs.push(Math.round(performance.now() - killedAtMs));
  }

  /**
   * Waits for a node to say it leads (whichever: the killed one may come back
   * in time), then for the first transfer acknowledged after that, which only
   * a leader of a later term can have committed: the killed process is gone,
   * and the bytes of an acknowledgement it sent before it died are long
   * delivered by the time a lease has expired.
   */
  private async timeFailover(killed: number, killedAtMs: number): Promise<Failover> {
    const boundMs = killedAtMs + RECOVERY_BOUND_MS;
    const name = `node${killed + 1}`;
    let next: string | undefined;
    while (next === undefined) {
      if (performance.now() > boundMs) {
        throw new Error(
          `no node led within ${RECOVERY_BOUND_MS} ms of the SIGKILL of ${name}, the leader`,
        );
      }
      const pings = await Promise.all(
        this.cluster.nodes.map((_, index) => this.cluster.ping(index)),
      );
      next = pings.find((ping) => ping?.role === 'leader')?.node ?? undefined;
      if (next === undefined) await delay(PING_EVERY_MS);
    }
    const takeoverAtMs = performance.now();
    const committedAtMs = await this.watch.next(takeoverAtMs, boundMs - takeoverAtMs);
    if (committedAtMs === undefined) {
      throw new Error(
        `no transfer was acknowledged within ${RECOVERY_BOUND_MS} ms of the SIGKILL of ${name}, the leader (${next} took over)`,
      );
    }
    return {
      killed: name,
      next,
      takeoverMs: Math.round(takeoverAtMs - killedAtMs),
      firstCommitMs: Math.round(committedAtMs - killedAtMs),
    };
  }

  /** Restarts every node found dead without a kill of the chaos, and counts it. */
  private async restartDeadNodes(): Promise<void> {
    for (const [index, node] of this.cluster.nodes.entries()) {
      if (node.running) continue;
      this.counts.unexpectedExits++;
      await this.cluster.restart(index);
    }
  }
}
