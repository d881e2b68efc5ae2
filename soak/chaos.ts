import { setTimeout as delay } from 'node:timers/promises';
import { type ServiceProcess, type TcpProxy } from '@once/testing';
import { ChaosPauses, draw } from './chaos-pauses';
import { type RangeMs } from './cli-values';
import { type LinkFaultCounts, faultLinks } from './link-faults';
import { type SeededRandom } from './seeded-random';

/** What the chaos did during the run. */
export interface ChaosCounts extends LinkFaultCounts {
  /** SIGKILLs of the service, each followed by a restart on the same data directory and port. */
  kills: number;
  /** SIGKILL to PING ready again, per kill. */
  readonly restartMs: number[];
  /** Times the service was found dead without a kill of the soak (it was restarted). */
  unexpectedExits: number;
}

/** The chaos of a run as the run drives it, whatever it kills. */
export interface SoakChaos<Counts extends ChaosCounts = ChaosCounts> {
  /** What it did so far. */
  readonly counts: Counts;
  /** Every loop; rejects as soon as one fails (a restart that did not come up). */
  readonly running: Promise<void>;
  /**
   * Ends the loops: a restart under way is finished first, a stall is
   * resumed, and a process found dead is restarted, so everything runs and
   * every proxy forwards when it resolves. Rejects with the first failure
   * of a loop.
   */
  stop(): Promise<Counts>;
}

/** How long the service stays dead after a SIGKILL before it is started again. */
const DOWNTIME_MS: RangeMs = { minMs: 0, maxMs: 500 };

/**
 * The chaos of a soak run against one service, two independent loops until
 * `stop()`: one SIGKILLs the service at random intervals and restarts it
 * (the clients keep their sessions: they resume and resend), the other cuts
 * every connection of the proxy or stalls it for a few hundred ms. They
 * overlap freely: a cut may land during a restart, a kill during a stall.
 */
export class Chaos implements SoakChaos {
  readonly counts: ChaosCounts = {
    kills: 0,
    cuts: 0,
    stalls: 0,
    restartMs: [],
    unexpectedExits: 0,
  };
  private readonly pauses = new ChaosPauses();
  readonly running: Promise<void>;

  constructor(
    private readonly service: ServiceProcess,
    private readonly proxy: TcpProxy,
    random: SeededRandom,
    killEveryMs: RangeMs,
    faultEveryMs: RangeMs,
  ) {
    this.running = Promise.all([
      this.killLoop(random.fork(1), killEveryMs),
      faultLinks([proxy], random.fork(2), faultEveryMs, this.pauses, this.counts),
    ]).then(() => undefined);
    // Observed by the run (a race with its duration) and by stop(); never left unhandled.
    this.running.catch(() => undefined);
  }

  async stop(): Promise<ChaosCounts> {
    this.pauses.stop();
    await this.running;
    this.proxy.resume();
    if (!this.service.running) {
      this.counts.unexpectedExits++;
      await this.service.restart();
    }
    return this.counts;
  }

  /** Kills and restarts; a service already dead by itself is counted and only restarted. */
  private async killLoop(random: SeededRandom, everyMs: RangeMs): Promise<void> {
    while (await this.pauses.wait(random, everyMs)) {
      const killedAtMs = performance.now();
      const killed = this.service.running;
      if (killed) {
        await this.service.crash();
        this.counts.kills++;
      } else {
        this.counts.unexpectedExits++;
      }
      await delay(draw(random, DOWNTIME_MS));
      await this.service.restart();
      if (killed) this.counts.restartMs.push(Math.round(performance.now() - killedAtMs));
    }
  }
}
